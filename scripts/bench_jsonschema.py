#!/usr/bin/env python3
"""Time Python JSON Schema validators on the same payload bytes activity-push validates.

usage: bench_jsonschema.py SCHEMA.json PAYLOAD.json SECONDS
Prints one JSON object: {"jsonschema": {"per_sec": N, "valid": bool} | {"error": "..."}, "fastjsonschema": {...},
"jsonschema-rs": {...}}
Each validator parses the bytes and validates, as a backend would per request: jsonschema and fastjsonschema
after json.loads; jsonschema-rs (Rust) after orjson.loads (Rust), the fastest pair a Python backend can pick.
"""
import json
import sys
import time
from importlib.metadata import version


def bench(fn, seconds):
    n = 0
    start = time.perf_counter()
    while True:
        for _ in range(50):
            fn()
        n += 50
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def main():
    schema = json.load(open(sys.argv[1]))
    raw = open(sys.argv[2], "rb").read()
    seconds = float(sys.argv[3])
    out = {}
    try:
        import jsonschema
        cls = jsonschema.validators.validator_for(schema)
        v = cls(schema)
        ok = v.is_valid(json.loads(raw))
        out["jsonschema"] = {"per_sec": bench(lambda: v.is_valid(json.loads(raw)), seconds), "valid": ok,
                             "version": version("jsonschema")}
    except Exception as e:  # noqa: BLE001 - report, don't crash the benchmark
        out["jsonschema"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        import fastjsonschema
        f = fastjsonschema.compile(schema)

        def run():
            try:
                f(json.loads(raw))
                return True
            except fastjsonschema.JsonSchemaException:
                return False
        ok = run()
        out["fastjsonschema"] = {"per_sec": bench(run, seconds), "valid": ok,
                                 "version": version("fastjsonschema")}
    except Exception as e:  # noqa: BLE001
        out["fastjsonschema"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        import jsonschema_rs
        import orjson
        rs = jsonschema_rs.validator_for(schema)
        ok = rs.is_valid(orjson.loads(raw))
        out["jsonschema-rs"] = {"per_sec": bench(lambda: rs.is_valid(orjson.loads(raw)), seconds), "valid": ok,
                                "version": f"{version('jsonschema-rs')} + orjson {version('orjson')}"}
    except Exception as e:  # noqa: BLE001
        out["jsonschema-rs"] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
