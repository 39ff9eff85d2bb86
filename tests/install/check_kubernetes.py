# SPDX-License-Identifier: GPL-2.0
"""A strict offline check of Kubernetes manifests against the API's own
types, as Debian's python3-kubernetes (the official client, v22: the
Kubernetes 1.22 API) generates them: every key must be a field of its
object's type (a typo is an error, where kubectl would drop it), every
value of its field's type, and every required field there (the models'
own client-side validation). Run by Debian's python3, the interpreter
python3-kubernetes is installed for:

    /usr/bin/python3 tests/install/check_kubernetes.py FILE...

Prints one line per object; exits 1 with the first error's path, 2 when
python3-kubernetes is missing. Objects of other APIs (a PodMonitor) are
listed as not checked here."""
import re
import sys

try:
    import yaml
    from kubernetes import client
except ImportError as e:
    print("check_kubernetes: %s (apt install python3-kubernetes)" % e, file=sys.stderr)
    sys.exit(2)

SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


class Invalid(Exception):
    pass


def model_class(name):
    cls = getattr(client, name, None) or getattr(client.models, name, None)
    if cls is None:
        raise Invalid("no type %s in python3-kubernetes" % name)
    return cls


def build(value, kind, path):
    """value checked as kind ('V1Container', 'list[...]', 'dict(str, ...)',
    a scalar, 'object'); returns it as the client's model."""
    m = re.fullmatch(r"list\[(.*)\]", kind)
    if m:
        if not isinstance(value, list):
            raise Invalid("%s: a list wanted, %r given" % (path, value))
        return [build(v, m.group(1), "%s[%d]" % (path, i)) for i, v in enumerate(value)]
    m = re.fullmatch(r"dict\(str, (.*)\)", kind)
    if m:
        if not isinstance(value, dict):
            raise Invalid("%s: a map wanted, %r given" % (path, value))
        return {k: build(v, m.group(1), "%s.%s" % (path, k)) for k, v in value.items()}
    if kind == "object":	# int-or-string and the like
        return value
    if kind in SCALARS:
        if not isinstance(value, SCALARS[kind]) or (kind == "int" and isinstance(value, bool)):
            raise Invalid("%s: %s wanted, %r given" % (path, kind, value))
        return value
    if not isinstance(value, dict):
        raise Invalid("%s: an object (%s) wanted, %r given" % (path, kind, value))
    return build_model(value, model_class(kind), path)


def build_model(value, cls, path):
    by_key = {key: attr for attr, key in cls.attribute_map.items()}
    args = {}
    for key, v in value.items():
        if key not in by_key:
            raise Invalid("%s.%s: no such field of %s" % (path, key, cls.__name__))
        attr = by_key[key]
        args[attr] = build(v, cls.openapi_types[attr], "%s.%s" % (path, key))
    try:
        return cls(**args)
    except ValueError as e:	# a required field missing, an enum's value
        raise Invalid("%s: %s" % (path, e))


def check_object(obj):
    """Returns what was checked, or None for an API python3-kubernetes lacks."""
    group_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    group, _, version = group_version.rpartition("/")
    name = "%s%s" % (version.capitalize(), kind)
    if not hasattr(client, name):
        # Kubernetes's own groups (apps, batch, *.k8s.io) must be known here
        if "." not in group or group.endswith(".k8s.io"):
            raise Invalid("no %s in %s (python3-kubernetes has the 1.22 API)" % (
                kind, group_version))
        return None
    build_model(obj, model_class(name), kind)
    return name


def main():
    if len(sys.argv) < 2:
        print("usage: check_kubernetes.py FILE...", file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        for d in docs:
            what = "%s/%s" % (d.get("kind"), d.get("metadata", {}).get("name"))
            try:
                name = check_object(d)
            except Invalid as e:
                print("%s: %s: %s" % (path, what, e))
                return 1
            print("%s: %s: %s" % (path, what, "valid %s" % name if name else
                                  "not checked (%s is not the core API)" % d.get("apiVersion")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
