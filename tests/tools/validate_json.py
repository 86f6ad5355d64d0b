#!/usr/bin/env python3
"""Validates nccl-doctor --json documents against docs/schema/<command>.json.

    validate_json.py SCHEMA_DIR FILE...

Each FILE holds one document; its "command" member picks the schema. Prints
one line per invalid document (file, path in the document, message) and
exits 1 when any is invalid, 2 when the jsonschema module or a schema is
missing or broken, else 0 with a count.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("the python3 module jsonschema is missing: apt-get install python3-jsonschema", file=sys.stderr)
    sys.exit(2)


def load_schemas(d):
    schemas = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            with open(os.path.join(d, name)) as fh:
                s = json.load(fh)
            jsonschema.Draft202012Validator.check_schema(s)
            schemas[name[:-5]] = s
    return schemas


def validator_for(schemas, name):
    store = {s["$id"]: s for s in schemas.values()}
    try:  # jsonschema >= 4.18: the referencing library
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            [(uri, Resource.from_contents(s)) for uri, s in store.items()])
        return jsonschema.Draft202012Validator(schemas[name], registry=reg)
    except ImportError:  # older (Debian 12's 4.10): RefResolver
        res = jsonschema.RefResolver.from_schema(schemas[name], store=store)
        return jsonschema.Draft202012Validator(schemas[name], resolver=res)


def main(argv):
    if len(argv) < 2:
        print("usage: validate_json.py SCHEMA_DIR FILE...", file=sys.stderr)
        return 2
    try:
        schemas = load_schemas(argv[0])
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print("bad schema in %s: %s" % (argv[0], e), file=sys.stderr)
        return 2
    validators = {}
    bad = 0
    for path in argv[1:]:
        try:
            with open(path) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            print("%s: not JSON: %s" % (path, e))
            bad += 1
            continue
        cmd = doc.get("command") if isinstance(doc, dict) else None
        if cmd not in schemas or cmd == "common":
            print("%s: no schema for command %r" % (path, cmd))
            bad += 1
            continue
        if cmd not in validators:
            validators[cmd] = validator_for(schemas, cmd)
        errs = sorted(validators[cmd].iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errs[:5]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print("%s: %s: %s" % (path, where, e.message[:300]))
        bad += 1 if errs else 0
    if bad:
        return 1
    print("%d documents valid" % (len(argv) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
