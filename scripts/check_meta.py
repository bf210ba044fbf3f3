#!/usr/bin/env python3
"""Checks META.json against the PGXN Meta Spec 1.0.0 and against the project.

The spec's rules (https://pgxn.org/spec/, version 1.0.0): the required keys
and the type of each key; names are "terms" (at least two characters, no
slash, backslash, control character or white space); versions are semantic
versions; a license is one of the spec's names, a list of them or a map of
names to URLs; unknown keys are allowed only as x_ or X_ extensions.  Then
what must agree with the rest of the tree: the version is the control file's
default_version (0.2 is 0.2.0) and the Makefile's EXTVERSION, the extension
provided is the one the control file describes, and the files it names
exist.

    scripts/check_meta.py [META.json]      exit 1 with one line per error
"""
import json
import os
import re
import sys

LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd",
    "freebsd", "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1",
    "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5",
    "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
    "restricted", "unrestricted", "unknown",
}
# SemVer as the spec has it: MAJOR.MINOR.PATCH with an optional pre-release
# (1.0.0-beta1 or, in SemVer 1.0's spelling, 1.0.0beta1).
SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
                    r"(?:-?[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")
TERM = re.compile(r"^[^/\\\s\x00-\x1f\x7f]{2,}$")
TAG = re.compile(r"^[^/\\\x00-\x1f\x7f]{2,255}$")
VERSION_OP = re.compile(r"^\s*(==|!=|>=|<=|>|<)?\s*(.+?)\s*$")
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}
TOP_REQUIRED = ("name", "abstract", "maintainer", "version", "license",
                "provides", "meta-spec")
TOP_OPTIONAL = ("description", "generated_by", "tags", "no_index", "prereqs",
                "release_status", "resources")

errors = []


def err(path, msg):
    errors.append(f"{path}: {msg}")


def extension_key(key):
    return key.startswith(("x_", "X_"))


def only_keys(path, obj, allowed):
    for k in obj:
        if k not in allowed and not extension_key(k):
            err(f"{path}.{k}", "unknown key (not in the spec, not x_ or X_)")


def string(path, v, nonempty=True):
    if not isinstance(v, str) or (nonempty and not v.strip()):
        err(path, "must be a non-empty string")
        return False
    return True


def semver(path, v):
    if string(path, v) and not SEMVER.match(v):
        err(path, f"{v!r} is not a semantic version (MAJOR.MINOR.PATCH)")


def version_range(path, v):
    """0, a version, or a comma-separated list of comparisons."""
    if v == 0 or v == "0":
        return
    if not isinstance(v, str):
        err(path, "must be 0 or a version range string")
        return
    for part in v.split(","):
        m = VERSION_OP.match(part)
        if not m or not SEMVER.match(m.group(2)):
            err(path, f"{part.strip()!r} is not a version or a comparison with one")


def check_spec(meta):
    if not isinstance(meta, dict):
        err("META.json", "must hold a JSON object")
        return
    for k in TOP_REQUIRED:
        if k not in meta:
            err(k, "required key missing")
    only_keys("", meta, set(TOP_REQUIRED) | set(TOP_OPTIONAL))

    ms = meta.get("meta-spec")
    if ms is not None:
        if not isinstance(ms, dict):
            err("meta-spec", "must be an object")
        else:
            only_keys("meta-spec", ms, {"version", "url"})
            if ms.get("version") != "1.0.0":
                err("meta-spec.version", "must be \"1.0.0\"")
            if "url" in ms:
                string("meta-spec.url", ms["url"])

    if "name" in meta and string("name", meta["name"]) and not TERM.match(meta["name"]):
        err("name", "must be a term: 2 or more characters, no slash, backslash or white space")
    if "version" in meta:
        semver("version", meta["version"])
    for k in ("abstract", "description", "generated_by"):
        if k in meta:
            string(k, meta[k])

    m = meta.get("maintainer")
    if m is not None:
        if isinstance(m, list):
            if not m:
                err("maintainer", "an empty list")
            for i, x in enumerate(m):
                string(f"maintainer[{i}]", x)
        else:
            string("maintainer", m)

    lic = meta.get("license")
    if lic is not None:
        if isinstance(lic, str):
            if lic not in LICENSES:
                err("license", f"{lic!r} is not one of the spec's license names")
        elif isinstance(lic, list):
            if not lic:
                err("license", "an empty list")
            for i, x in enumerate(lic):
                if x not in LICENSES:
                    err(f"license[{i}]", f"{x!r} is not one of the spec's license names")
        elif isinstance(lic, dict):
            if not lic:
                err("license", "an empty object")
            for k, url in lic.items():
                string(f"license.{k}", url)
        else:
            err("license", "must be a name, a list of names or an object of names and URLs")

    prov = meta.get("provides")
    if prov is not None:
        if not isinstance(prov, dict) or not prov:
            err("provides", "must be an object naming at least one extension")
        else:
            for name, ext in prov.items():
                path = f"provides.{name}"
                if not TERM.match(name):
                    err(path, "the extension's name must be a term")
                if not isinstance(ext, dict):
                    err(path, "must be an object")
                    continue
                only_keys(path, ext, {"file", "version", "abstract", "docfile"})
                for k in ("file", "version"):
                    if k not in ext:
                        err(f"{path}.{k}", "required key missing")
                if "version" in ext:
                    semver(f"{path}.version", ext["version"])
                for k in ("file", "abstract", "docfile"):
                    if k in ext:
                        string(f"{path}.{k}", ext[k])

    tags = meta.get("tags")
    if tags is not None:
        if not isinstance(tags, list) or not tags:
            err("tags", "must be a non-empty list")
        else:
            for i, t in enumerate(tags):
                if not isinstance(t, str) or not TAG.match(t):
                    err(f"tags[{i}]", "must be a string of 2 to 255 characters, no slash or backslash")

    ni = meta.get("no_index")
    if ni is not None:
        if not isinstance(ni, dict):
            err("no_index", "must be an object")
        else:
            only_keys("no_index", ni, {"file", "directory"})
            for k, v in ni.items():
                vs = [v] if isinstance(v, str) else v
                if not isinstance(vs, list) or not all(isinstance(x, str) and x for x in vs):
                    err(f"no_index.{k}", "must be a path or a list of paths")

    pre = meta.get("prereqs")
    if pre is not None:
        if not isinstance(pre, dict):
            err("prereqs", "must be an object")
        else:
            for phase, rels in pre.items():
                path = f"prereqs.{phase}"
                if phase not in PHASES and not extension_key(phase):
                    err(path, f"unknown phase (one of {sorted(PHASES)})")
                    continue
                if not isinstance(rels, dict):
                    err(path, "must be an object")
                    continue
                for rel, deps in rels.items():
                    if rel not in RELATIONS and not extension_key(rel):
                        err(f"{path}.{rel}", f"unknown relationship (one of {sorted(RELATIONS)})")
                        continue
                    if not isinstance(deps, dict):
                        err(f"{path}.{rel}", "must be an object of names and versions")
                        continue
                    for dep, ver in deps.items():
                        if not TERM.match(dep):
                            err(f"{path}.{rel}.{dep}", "the name must be a term")
                        version_range(f"{path}.{rel}.{dep}", ver)

    rs = meta.get("release_status")
    if rs is not None and rs not in ("stable", "testing", "unstable"):
        err("release_status", "must be stable, testing or unstable")

    res = meta.get("resources")
    if res is not None:
        if not isinstance(res, dict):
            err("resources", "must be an object")
        else:
            only_keys("resources", res, {"homepage", "bugtracker", "repository"})
            if "homepage" in res:
                string("resources.homepage", res["homepage"])
            for k, allowed in (("bugtracker", {"web", "mailto"}),
                               ("repository", {"url", "web", "type"})):
                if k in res:
                    if not isinstance(res[k], dict) or not res[k]:
                        err(f"resources.{k}", "must be a non-empty object")
                    else:
                        only_keys(f"resources.{k}", res[k], allowed)
                        for kk, vv in res[k].items():
                            string(f"resources.{k}.{kk}", vv)


def read_control(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*(\w+)\s*=\s*'?([^'#]*?)'?\s*(#.*)?$", line)
            if m:
                out[m.group(1)] = m.group(2)
    return out


def check_project(meta, root):
    controls = sorted(f for f in os.listdir(root) if f.endswith(".control"))
    if len(controls) != 1:
        err("project", f"expected one .control file, found {controls}")
        return
    ext = controls[0][:-len(".control")]
    control = read_control(os.path.join(root, controls[0]))
    dv = control.get("default_version", "")
    want = dv if dv.count(".") == 2 else dv + ".0"
    with open(os.path.join(root, "Makefile")) as f:
        m = re.search(r"^EXTVERSION\s*=\s*(\S+)", f.read(), re.M)
    if not m or m.group(1) != dv:
        err("project", f"the Makefile's EXTVERSION ({m and m.group(1)}) is not the control file's default_version ({dv})")
    if meta.get("name") != ext:
        err("name", f"{meta.get('name')!r} is not the extension's name ({ext!r})")
    if meta.get("version") != want:
        err("version", f"{meta.get('version')!r} does not follow the control file's default_version {dv!r} (want {want!r})")
    prov = meta.get("provides") or {}
    if isinstance(prov, dict):
        if ext not in prov:
            err("provides", f"does not name the extension {ext!r}")
        for name, e in prov.items():
            if not isinstance(e, dict):
                continue
            if e.get("version") != want:
                err(f"provides.{name}.version", f"{e.get('version')!r} is not {want!r}")
            for k in ("file", "docfile"):
                if isinstance(e.get(k), str) and not os.path.isfile(os.path.join(root, e[k])):
                    err(f"provides.{name}.{k}", f"{e[k]} does not exist")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "META.json")
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f"META.json: {e}")
        return 1
    check_spec(meta)
    if isinstance(meta, dict):
        check_project(meta, os.path.dirname(os.path.abspath(path)))
    for e in errors:
        print(e)
    if errors:
        return 1
    print(f"{os.path.basename(path)}: valid (PGXN Meta Spec 1.0.0), version {meta['version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
