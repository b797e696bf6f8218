"""The phased program's goal, as sweep.py and fake_node.py judge it: eco's
energy below the best static (core, uncore) pair within the bound, and at
least 75 % of the ideal per-phase saving."""

IDEAL_SHARE_GOAL = 0.75


def phased_goal(energy, ideal, best_static):
    """(text, met): `energy` eco's mean energy over baseline's, `ideal` the
    ideal per-phase choice's, `best_static` the best static pair's tuple
    (energy first) or None when no pair keeps the bound."""
    saving, ideal_saving = 1 - energy, 1 - ideal
    share = saving / ideal_saving if ideal_saving > 0 else float("nan")
    below_static = best_static is None or energy < best_static[0]
    text = f"ideal per phase {ideal:.3f}, eco has {share:.0%} of its saving" + \
        ("" if below_static else ", NOT below the best static pair")
    return text, below_static and share >= IDEAL_SHARE_GOAL
