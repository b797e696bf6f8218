#!/usr/bin/python3
"""Reads an OTF2 archive with the OTF2 Python bindings (python3-otf2) and
prints, as JSON, what the export tests compare with rubato's own trace: per
location the sequence of region enters (region names, in order), the number
of leaves, of steal parameter events (with their values) and of metrics, and
the clock properties."""
import json
import sys

import otf2

def main(path):
    out = {"locations": {}, "clock": None}
    with otf2.reader.open(path) as trace:
        cp = trace.definitions.clock_properties
        out["clock"] = {"resolution": cp.timer_resolution, "offset": cp.global_offset, "length": cp.trace_length}
        out["regions"] = sorted({r.name for r in trace.definitions.regions})
        for location, event in trace.events:
            loc = out["locations"].setdefault(location.name, {"enters": [], "leaves": 0, "victims": [], "metrics": 0,
                                                              "ordered": True, "last": 0})
            if event.time < loc["last"]:
                loc["ordered"] = False
            loc["last"] = event.time
            if isinstance(event, otf2.events.Enter):
                loc["enters"].append(event.region.name)
            elif isinstance(event, otf2.events.Leave):
                loc["leaves"] += 1
            elif isinstance(event, otf2.events.ParameterUnsignedInt):
                loc["victims"].append(event.value)
            elif isinstance(event, otf2.events.Metric):
                loc["metrics"] += 1
    json.dump(out, sys.stdout)

if __name__ == "__main__":
    main(sys.argv[1])
