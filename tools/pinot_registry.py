#!/usr/bin/env python3
"""Extract the registry of function names that Apache Pinot registers.

Reads Pinot's Java sources straight out of a git directory (``git show
<commit>:<path>`` / ``git grep``; no work tree needed) and writes a TSV with
one row per registered function (not per alias):

    kind<TAB>family<TAB>name<TAB>aliases<TAB>source

kinds:
  scalar     public methods annotated @ScalarFunction, and public classes
             annotated @ScalarFunction that implement PinotScalarFunction,
             in main (non-test) sources under a ``*.function.*`` package
             (the package pattern FunctionRegistry scans).
  transform  constants of the enum TransformFunctionType.
  aggregate  constants of the enum AggregationFunctionType.
  window     functions the multi-stage runtime's window operator supports:
             the WINDOW_FUNCTION_MAP keys of the ranking / value window
             function classes plus the aggregate names accepted by
             WindowValueAggregatorFactory.

Only names (facts) are extracted; no Pinot code is copied.  Standard library
only.

Usage:
    python3 tools/pinot_registry.py [--pinot-git DIR] [--out FILE]
"""

import argparse
import os
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict

DEFAULT_PINOT_GIT = "/work/.mirror/apache+pinot/repo"
DEFAULT_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "docs", "pinot-registry.tsv")

# --------------------------------------------------------------------------------------------
# git access
# --------------------------------------------------------------------------------------------


class Git:
    def __init__(self, git_dir):
        self.git_dir = git_dir
        self.commit = self._run(["rev-parse", "HEAD"]).strip()
        self._cache = {}

    def _run(self, args, ok_codes=(0,)):
        proc = subprocess.run(["git", "-C", self.git_dir] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        if proc.returncode not in ok_codes:
            raise RuntimeError("git %s failed (%d): %s" % (" ".join(args), proc.returncode,
                                                           proc.stderr.decode("utf-8", "replace")))
        return proc.stdout.decode("utf-8", "replace")

    def show(self, path):
        if path not in self._cache:
            self._cache[path] = self._run(["show", "%s:%s" % (self.commit, path)])
        return self._cache[path]

    def grep_files(self, pattern, extended=False, pathspec="*.java"):
        """Paths of files (at the pinned commit) whose text matches ``pattern``.

        A pathspec is always given: some large blobs of the mirror are absent and
        an unrestricted grep would stumble on them."""
        args = ["grep", "-l", "-I"]
        if extended:
            args.append("-E")
        args += ["-e", pattern, self.commit, "--", pathspec]
        out = self._run(args, ok_codes=(0, 1))
        prefix = self.commit + ":"
        paths = []
        for line in out.splitlines():
            if line.startswith(prefix):
                line = line[len(prefix):]
            if line:
                paths.append(line)
        return sorted(set(paths))


def is_main_source(path):
    """True for production sources: not tests, not benchmarks, not tool examples."""
    p = "/" + path
    if "/test/" in p or "/src/test" in p or "/testFixtures/" in p:
        return False
    if p.startswith("/pinot-perf/"):
        return False
    if p.startswith("/pinot-tools/") and "example" in p.lower():
        return False
    if "/src/main/" not in p:
        return False
    return True


# --------------------------------------------------------------------------------------------
# A small Java lexer (enough to find annotations, declarations and enum constants)
# --------------------------------------------------------------------------------------------

class Tok:
    __slots__ = ("kind", "text", "value", "pos")

    def __init__(self, kind, text, value, pos):
        self.kind = kind      # 'comment', 'string', 'char', 'ident', 'number', 'punct'
        self.text = text
        self.value = value    # unescaped string value for 'string'
        self.pos = pos

    def __repr__(self):
        return "Tok(%s,%r)" % (self.kind, self.text)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "s": " ",
            "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def _unescape(s):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "u":
                j = i + 1
                while j < len(s) and s[j] == "u":
                    j += 1
                try:
                    out.append(chr(int(s[j:j + 4], 16)))
                    i = j + 4
                    continue
                except ValueError:
                    pass
            out.append(_ESCAPES.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def lex(src):
    toks = []
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            toks.append(Tok("comment", src[i:j], None, i))
            i = j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            toks.append(Tok("comment", src[i:j], None, i))
            i = j
            continue
        if src.startswith('"""', i):
            j = i + 3
            while j < n and not (src.startswith('"""', j) and src[j - 1] != "\\"):
                j += 1
            body = src[i + 3:j]
            toks.append(Tok("string", src[i:j + 3], _unescape(body), i))
            i = j + 3
            continue
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == "\\":
                    j += 1
                elif src[j] == "\n":
                    break
                j += 1
            toks.append(Tok("string" if c == '"' else "char", src[i:j + 1], _unescape(src[i + 1:j]), i))
            i = j + 1
            continue
        if c.isalpha() or c == "_" or c == "$":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "_$"):
                j += 1
            toks.append(Tok("ident", src[i:j], None, i))
            i = j
            continue
        if c.isdigit():
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "_."):
                j += 1
            toks.append(Tok("number", src[i:j], None, i))
            i = j
            continue
        toks.append(Tok("punct", c, None, i))
        i += 1
    return toks


def code_tokens(toks):
    return [t for t in toks if t.kind != "comment"]


_OPEN = {"(": ")", "{": "}", "[": "]"}
_CLOSE = {")", "}", "]"}


def match_close(toks, i):
    """Index of the bracket closing the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "punct":
            continue
        if t.text in _OPEN:
            depth += 1
        elif t.text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced bracket at token %d" % i)


def split_top(toks, sep=","):
    """Split a token list on top-level separators (outside (), {}, [])."""
    parts = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text in _OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in _CLOSE:
            depth -= 1
        if depth == 0 and t.kind == "punct" and t.text == sep:
            parts.append([])
        else:
            parts[-1].append(t)
    if parts and not parts[-1]:
        parts.pop()
    return parts


def package_of(ctoks):
    for i, t in enumerate(ctoks):
        if t.kind == "ident" and t.text == "package":
            j = i + 1
            name = []
            while j < len(ctoks) and not (ctoks[j].kind == "punct" and ctoks[j].text == ";"):
                name.append(ctoks[j].text)
                j += 1
            return "".join(name)
    return ""


# --------------------------------------------------------------------------------------------
# Canonicalisation
# --------------------------------------------------------------------------------------------

def canonical(name):
    """Pinot's FunctionRegistry.canonicalize: drop '_' and lower-case."""
    return name.replace("_", "").lower()


def merge_aliases(primary, existing, new):
    """Append aliases from ``new`` not already present (canonically) and not the primary."""
    seen = {canonical(primary)} | {canonical(a) for a in existing}
    out = list(existing)
    for a in new:
        if canonical(a) not in seen:
            seen.add(canonical(a))
            out.append(a)
    return out


# --------------------------------------------------------------------------------------------
# Scalar functions
# --------------------------------------------------------------------------------------------

REGISTRY_PACKAGE_RE = re.compile(r".*\.function\..*")   # FunctionRegistry's class-name pattern

# family by sub-package of org.apache.pinot.*.function.scalar.<sub>
SCALAR_SUBPACKAGE_FAMILY = {
    "arithmetic": "arithmetic", "array": "array", "bitwise": "bitwise", "comparison": "comparison",
    "regexp": "regexp", "string": "string", "uuid": "uuid",
}
# family by file stem (after removing Functions / ScalarFunction / Function suffixes)
SCALAR_STEM_FAMILY = {
    "arithmetic": "arithmetic", "array": "array", "datatypeconversion": "conversion",
    "datetimeconvert": "datetime", "datetime": "datetime", "geohash": "geohash", "hash": "hash",
    "internal": "internal", "internalreduce": "internal", "ipaddress": "ip", "json": "json",
    "logical": "logical", "object": "object", "string": "string", "trigonometric": "trig",
    "url": "url", "vector": "vector", "ngram": "ngram", "sketch": "sketch", "filtermv": "array",
    "uuidconversion": "uuid", "ltrim": "string", "rtrim": "string",
}


def scalar_family(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    low = stem.lower()
    for suffix in ("scalarfunctions", "scalarfunction", "functions", "function"):
        if low.endswith(suffix) and len(low) > len(suffix):
            low = low[: -len(suffix)]
            break
    parts = path.split("/")
    if "geospatial" in parts:
        return "geospatial"
    if low in ("ngram",):
        return "ngram"
    parent = parts[-2] if len(parts) >= 2 else ""
    if parent in SCALAR_SUBPACKAGE_FAMILY:
        return SCALAR_SUBPACKAGE_FAMILY[parent]
    if low in SCALAR_STEM_FAMILY:
        return SCALAR_STEM_FAMILY[low]
    return low or "other"


def parse_annotation_args(ctoks, i):
    """ctoks[i] is '(' right after @ScalarFunction; returns (attrs dict, index after ')')."""
    j = match_close(ctoks, i)
    attrs = {}
    for part in split_top(ctoks[i + 1:j]):
        if len(part) >= 2 and part[0].kind == "ident" and part[1].kind == "punct" and part[1].text == "=":
            key, val = part[0].text, part[2:]
        else:
            key, val = "value", part
        attrs[key] = val
    return attrs, j + 1


def annotation_strings(val_toks, unresolved):
    """String values of an annotation element: "a" or {"a", "b"}."""
    toks = val_toks
    if toks and toks[0].kind == "punct" and toks[0].text == "{":
        toks = toks[1:match_close(toks, 0)]
    out = []
    for part in split_top(toks):
        if len(part) == 1 and part[0].kind == "string":
            out.append(part[0].value)
        elif part:
            unresolved.append("".join(t.text for t in part))
    return out


def annotation_bool(val_toks, default):
    if not val_toks:
        return default
    txt = "".join(t.text for t in val_toks)
    if txt == "true":
        return True
    if txt == "false":
        return False
    return default


def read_qualified_name(ctoks, j):
    """Read `ident(.ident)*` starting at j; return (name, index after it)."""
    parts = []
    if j < len(ctoks) and ctoks[j].kind == "ident":
        parts.append(ctoks[j].text)
        j += 1
        while j + 1 < len(ctoks) and ctoks[j].kind == "punct" and ctoks[j].text == "." \
                and ctoks[j + 1].kind == "ident":
            parts.append(ctoks[j + 1].text)
            j += 2
    return ".".join(parts), j


def skip_annotations(ctoks, k):
    """Skip annotations starting at k; return index of first non-annotation token."""
    while k < len(ctoks) and ctoks[k].kind == "punct" and ctoks[k].text == "@":
        if k + 1 < len(ctoks) and ctoks[k + 1].kind == "ident" and ctoks[k + 1].text == "interface":
            return k
        _, k = read_qualified_name(ctoks, k + 1)
        if k < len(ctoks) and ctoks[k].kind == "punct" and ctoks[k].text == "(":
            k = match_close(ctoks, k) + 1
    return k


def find_scalar_annotations(ctoks):
    """Yield (annotation_start_index, attrs, decl_index)."""
    i = 0
    while i < len(ctoks) - 1:
        t = ctoks[i]
        if t.kind == "punct" and t.text == "@":
            # qualified or simple annotation name
            full, j = read_qualified_name(ctoks, i + 1)
            if full == "ScalarFunction" or full.endswith(".ScalarFunction"):
                attrs = {}
                if j < len(ctoks) and ctoks[j].kind == "punct" and ctoks[j].text == "(":
                    attrs, j = parse_annotation_args(ctoks, j)
                yield i, attrs, skip_annotations(ctoks, j)
                i = j
                continue
        i += 1


def read_declaration(ctoks, k):
    """Read a declaration head starting at k.

    Returns dict(kind='class'|'method'|'other', name, modifiers, extends, implements, end)."""
    head = []
    j = k
    angle = 0
    while j < len(ctoks):
        t = ctoks[j]
        if t.kind == "punct":
            if t.text == "<":
                angle += 1
            elif t.text == ">":
                angle -= 1
            elif angle <= 0 and t.text in ("(", "{", ";", "="):
                break
        head.append(t)
        j += 1
    words = [t.text for t in head if t.kind == "ident"]
    modifiers = set(w for w in words if w in ("public", "protected", "private", "static", "final",
                                              "abstract", "default", "synchronized", "native"))
    for kw in ("class", "interface", "enum", "record"):
        if kw in words:
            idx = words.index(kw)
            name = words[idx + 1] if idx + 1 < len(words) else ""
            ext, impl = [], []
            mode = None
            depth = 0
            for t in head:
                if t.kind == "punct" and t.text == "<":
                    depth += 1
                elif t.kind == "punct" and t.text == ">":
                    depth -= 1
                elif t.kind == "ident" and depth == 0:
                    if t.text == "extends":
                        mode = ext
                    elif t.text == "implements":
                        mode = impl
                    elif mode is not None:
                        mode.append(t.text)
            return {"kind": "class", "name": name, "modifiers": modifiers, "decl": kw,
                    "extends": ext, "implements": impl, "end": j}
    if j < len(ctoks) and ctoks[j].text == "(":
        idents = [t for t in head if t.kind == "ident"]
        name = idents[-1].text if idents else ""
        return {"kind": "method", "name": name, "modifiers": modifiers, "end": j}
    return {"kind": "other", "name": "", "modifiers": modifiers, "end": j}


def class_body_range(ctoks, decl):
    j = decl["end"]
    while j < len(ctoks) and not (ctoks[j].kind == "punct" and ctoks[j].text == "{"):
        j += 1
    return j, match_close(ctoks, j)


def enclosing_class(classes, idx):
    """Innermost class (dict with body range) containing token index idx."""
    best = None
    for c in classes:
        if c["body"][0] < idx < c["body"][1]:
            if best is None or c["body"][0] > best["body"][0]:
                best = c
    return best


def all_classes(ctoks):
    out = []
    for i, t in enumerate(ctoks):
        if t.kind == "ident" and t.text in ("class", "interface", "enum") and \
                not (i > 0 and ctoks[i - 1].kind == "punct" and ctoks[i - 1].text in (".", "@")):
            # find start of modifiers: walk back over idents/annotations is overkill; read from here
            if i + 1 >= len(ctoks) or ctoks[i + 1].kind != "ident":
                continue
            # build declaration from the keyword
            decl = read_declaration(ctoks, i)
            if decl["kind"] != "class":
                continue
            # modifiers: walk backwards over identifier modifiers
            mods = set()
            b = i - 1
            while b >= 0 and ctoks[b].kind == "ident" and ctoks[b].text in (
                    "public", "protected", "private", "static", "final", "abstract", "sealed", "strictfp"):
                mods.add(ctoks[b].text)
                b -= 1
            decl["modifiers"] |= mods
            try:
                decl["body"] = class_body_range(ctoks, decl)
            except ValueError:
                continue
            out.append(decl)
    return out


def get_name_literal(ctoks, body):
    """String literal returned by a `getName()` method within the given token range."""
    lo, hi = body
    for i in range(lo, hi - 4):
        t = ctoks[i]
        if t.kind == "ident" and t.text == "getName" and ctoks[i + 1].text == "(" and ctoks[i + 2].text == ")":
            k = i + 3
            while k < hi and ctoks[k].text != "{" and ctoks[k].text != ";":
                k += 1
            if k < hi and ctoks[k].text == "{" and ctoks[k + 1].text == "return" and ctoks[k + 3].text == ";":
                ret = ctoks[k + 2]
                if ret.kind == "string":
                    return ret.value
                if ret.kind == "ident":
                    # `return CONSTANT;` with `String CONSTANT = "...";` declared in the same file
                    for m in range(len(ctoks) - 4):
                        if ctoks[m].text == "String" and ctoks[m + 1].text == ret.text \
                                and ctoks[m + 2].text == "=" and ctoks[m + 3].kind == "string" \
                                and ctoks[m + 4].text == ";":
                            return ctoks[m + 3].value
    return None


class ClassIndex:
    """Resolve class names to their declarations in main sources (for supertype walks)."""

    def __init__(self, git):
        self.git = git
        self._cache = {}

    def lookup(self, simple_name):
        if simple_name in self._cache:
            return self._cache[simple_name]
        found = []
        for path in self.git.grep_files(r"(class|interface)[[:space:]]+%s\b" % re.escape(simple_name), extended=True):
            if not is_main_source(path):
                continue
            ctoks = code_tokens(lex(self.git.show(path)))
            for c in all_classes(ctoks):
                if c["name"] == simple_name:
                    found.append((path, ctoks, c))
        self._cache[simple_name] = found
        return found

    def implements(self, path, ctoks, decl, target, seen=None):
        """True if the class/interface decl implements/extends `target` transitively."""
        seen = seen or set()
        supers = list(decl.get("implements", [])) + list(decl.get("extends", []))
        for s in supers:
            s = s.split(".")[-1]
            if s == target:
                return True
            if s in seen:
                continue
            seen.add(s)
            for (p2, t2, d2) in self.lookup(s):
                if self.implements(p2, t2, d2, target, seen):
                    return True
        return False

    def get_name(self, path, ctoks, decl, seen=None):
        """getName() literal of the class or of its nearest superclass that defines one."""
        lit = get_name_literal(ctoks, decl["body"])
        if lit is not None:
            return lit
        seen = seen or set()
        for s in decl.get("extends", []):
            s = s.split(".")[-1]
            if s in seen:
                continue
            seen.add(s)
            for (p2, t2, d2) in self.lookup(s):
                lit = self.get_name(p2, t2, d2, seen)
                if lit is not None:
                    return lit
        return None


def extract_scalars(git, notes):
    cindex = ClassIndex(git)
    regs = []        # dicts: names(list), source, family, origin('method'|'class')
    disabled = []    # (name, source, detail)
    skipped = []     # (what, source, reason)
    for path in git.grep_files("@ScalarFunction"):
        if not is_main_source(path):
            continue
        ctoks = code_tokens(lex(git.show(path)))
        pkg = package_of(ctoks)
        classes = all_classes(ctoks)
        for ann_idx, attrs, decl_idx in find_scalar_annotations(ctoks):
            decl = read_declaration(ctoks, decl_idx)
            unresolved = []
            names = annotation_strings(attrs.get("names", []), unresolved)
            if unresolved:
                notes.append("unresolved names in %s: %s" % (path, unresolved))
            enabled = annotation_bool(attrs.get("enabled"), True)
            family = scalar_family(path)
            if decl["kind"] == "class":
                owner = decl["name"]
                fq = (pkg + "." + owner) if pkg else owner
                cdecl = next((c for c in classes if c["name"] == owner), None)
                if cdecl is None:
                    skipped.append((owner, path, "class declaration not found"))
                    continue
                if not cindex.implements(path, ctoks, cdecl, "PinotScalarFunction"):
                    skipped.append(("class " + owner, path,
                                    "class-level @ScalarFunction%s on a class that is not a PinotScalarFunction "
                                    "(only carries defaults for its methods)" %
                                    ("(enabled = false)" if not enabled else "")))
                    continue
                if "abstract" in cdecl["modifiers"] or cdecl["decl"] != "class":
                    skipped.append(("class " + owner, path, "abstract or not a class"))
                    continue
                if "public" not in cdecl["modifiers"]:
                    skipped.append(("class " + owner, path, "not public"))
                    continue
                if not REGISTRY_PACKAGE_RE.match(fq):
                    skipped.append(("class " + owner, path, "outside the *.function.* packages scanned"))
                    continue
                if not names:
                    gn = cindex.get_name(path, ctoks, cdecl)
                    if gn is None:
                        notes.append("could not resolve getName() of %s (%s); using class name" % (owner, path))
                        gn = owner
                    names = [gn]
                origin = "class"
                label = owner
            elif decl["kind"] == "method":
                owner_cls = enclosing_class(classes, ann_idx)
                owner = owner_cls["name"] if owner_cls else ""
                # nested classes: build the binary name's package part (package + outer names)
                fq = (pkg + "." + owner) if pkg else owner
                if "public" not in decl["modifiers"]:
                    skipped.append((decl["name"], path, "method not public"))
                    continue
                if not REGISTRY_PACKAGE_RE.match(fq):
                    skipped.append((decl["name"], path, "outside the *.function.* packages scanned"))
                    continue
                if not names:
                    names = [decl["name"]]
                origin = "method"
                label = decl["name"]
            else:
                notes.append("@ScalarFunction on unrecognised declaration in %s at token %d" % (path, ann_idx))
                continue
            if not enabled:
                disabled.append((names[0], path, "%s %s" % (origin, label)))
                continue
            regs.append({"names": names, "source": path, "family": family, "origin": origin})
    return regs, disabled, skipped


def build_scalar_rows(regs, notes):
    """Group registrations into rows, one per distinct canonical primary name."""
    rows = OrderedDict()   # canonical primary -> row
    alias_owner = {}       # canonical alias -> canonical primary
    dropped_spellings = []
    for r in regs:
        names = r["names"]
        primary = names[0]
        cp = canonical(primary)
        aliases = []
        for a in names[1:]:
            if canonical(a) == cp:
                dropped_spellings.append((primary, a))
            else:
                aliases.append(a)
        key = cp
        if key not in rows and key in alias_owner:
            # this primary is already an alias of another row: fold it there
            notes.append("scalar '%s' (%s) is also an alias of '%s'; folded into that row" %
                         (primary, r["source"], rows[alias_owner[key]]["name"]))
            key = alias_owner[key]
            aliases = [primary] + aliases
        if key not in rows:
            rows[key] = {"kind": "scalar", "family": r["family"], "name": primary, "aliases": [],
                         "sources": [], "origins": set()}
        row = rows[key]
        row["aliases"] = merge_aliases(row["name"], row["aliases"], aliases)
        if r["source"] not in row["sources"]:
            row["sources"].append(r["source"])
        row["origins"].add(r["origin"])
        for a in row["aliases"]:
            alias_owner.setdefault(canonical(a), key)
    # a row whose primary was registered before it became another row's alias
    for key in list(rows):
        if key in alias_owner and alias_owner[key] != key and key in rows and alias_owner[key] in rows:
            other = rows[alias_owner[key]]
            mine = rows.pop(key)
            notes.append("scalar '%s' is also an alias of '%s'; folded into that row" % (mine["name"], other["name"]))
            other["aliases"] = merge_aliases(other["name"], other["aliases"], [mine["name"]] + mine["aliases"])
            for s in mine["sources"]:
                if s not in other["sources"]:
                    other["sources"].append(s)
    for primary, spelling in sorted(set(dropped_spellings)):
        notes.append("scalar '%s': listed spelling '%s' canonicalises to the same key; not listed as alias" %
                     (primary, spelling))
    for row in rows.values():
        if len(row["sources"]) > 1:
            notes.append("scalar '%s' is registered from several files: %s" % (row["name"], ", ".join(row["sources"])))
    return list(rows.values())


# --------------------------------------------------------------------------------------------
# Enums (TransformFunctionType, AggregationFunctionType)
# --------------------------------------------------------------------------------------------

def find_enum(git, enum_name, module_hint=None):
    paths = [p for p in git.grep_files(r"enum[[:space:]]+%s\b" % enum_name, extended=True) if is_main_source(p)]
    if module_hint:
        pref = [p for p in paths if p.startswith(module_hint + "/")]
        paths = pref or paths
    paths = [p for p in paths if os.path.basename(p) == enum_name + ".java"] or paths
    if len(paths) != 1:
        raise RuntimeError("expected one definition of enum %s, found %s" % (enum_name, paths))
    return paths[0]


def resolve_string_constant(git, name, cache={}):
    """Value of a `static final String NAME = "..."` constant declared in main sources."""
    if name in cache:
        return cache[name]
    values = set()
    for path in git.grep_files(r"String[[:space:]]+%s[[:space:]]*=" % re.escape(name), extended=True):
        if not is_main_source(path):
            continue
        ctoks = code_tokens(lex(git.show(path)))
        for i in range(len(ctoks) - 3):
            if ctoks[i].text == "String" and ctoks[i + 1].text == name and ctoks[i + 2].text == "=" \
                    and ctoks[i + 3].kind == "string" and ctoks[i + 4].text == ";":
                values.add(ctoks[i + 3].value)
    cache[name] = values.pop() if len(values) == 1 else None
    return cache[name]


def eval_string_expr(git, toks, known):
    """Evaluate a constant string expression: literals, CONSTANTs, ENUM.getName(), joined by '+'."""
    out = []
    for part in split_top(toks, "+"):
        if len(part) == 1 and part[0].kind == "string":
            out.append(part[0].value)
            continue
        txt = "".join(t.text for t in part)
        m = re.fullmatch(r"(?:\w+\.)*(\w+)\.(?:getName|name)\(\)", txt)
        if m and m.group(1) in known:
            out.append(known[m.group(1)])
            continue
        m = re.fullmatch(r"(?:\w+\.)*([A-Z][A-Z0-9_]*)", txt)
        if m:
            v = resolve_string_constant(git, m.group(1))
            if v is not None:
                out.append(v)
                continue
        return None
    return "".join(out)


def parse_enum_constants(git, path, enum_name):
    """Return list of dicts: const, args (list of token lists), comments (preceding comment texts),
    deprecated (bool), and evaluated `strings` helpers."""
    toks = lex(git.show(path))
    # locate `enum <Name> {`
    start = None
    for i in range(len(toks) - 2):
        if toks[i].kind == "ident" and toks[i].text == "enum" and toks[i + 1].text == enum_name:
            j = i + 2
            while toks[j].text != "{":
                j += 1
            start = j + 1
            break
    if start is None:
        raise RuntimeError("enum %s not found in %s" % (enum_name, path))
    consts = []
    pending_comments = []
    section = []
    i = start
    depth = 0
    cur = None
    while i < len(toks):
        t = toks[i]
        if t.kind == "comment":
            pending_comments.append(t.text)
            i += 1
            continue
        if t.kind == "punct" and t.text in (";", "}") and depth == 0:
            break
        if t.kind == "punct" and t.text == ",":
            i += 1
            continue
        if t.kind == "punct" and t.text == "@":
            # annotation on the constant
            j = i + 1
            ann = toks[j].text if j < len(toks) else ""
            j += 1
            while j < len(toks) and toks[j].kind == "punct" and toks[j].text == ".":
                ann = toks[j + 1].text
                j += 2
            if j < len(toks) and toks[j].text == "(":
                j = match_close(toks, j) + 1
            if cur is None:
                cur = {"annotations": []}
            cur["annotations"].append(ann)
            i = j
            continue
        if t.kind == "ident":
            if pending_comments:
                section = list(pending_comments)
                pending_comments = []
            c = cur or {"annotations": []}
            cur = None
            c["const"] = t.text
            c["section"] = section
            c["args"] = []
            j = i + 1
            # args
            while j < len(toks) and toks[j].kind == "comment":
                j += 1
            if j < len(toks) and toks[j].text == "(":
                close = match_close(toks, j)
                inner = [x for x in toks[j + 1:close] if x.kind != "comment"]
                c["args"] = split_top(inner)
                j = close + 1
            while j < len(toks) and toks[j].kind == "comment":
                j += 1
            if j < len(toks) and toks[j].text == "{":
                j = match_close(toks, j) + 1
            consts.append(c)
            i = j
            continue
        raise RuntimeError("unexpected token %r in enum %s (%s)" % (t.text, enum_name, path))
    # evaluate names
    known = {}
    for c in consts:
        name = eval_string_expr(git, c["args"][0], known) if c["args"] else None
        if name is None:
            name = c["const"].lower()
            c["name_note"] = "name not a constant string expression; used lower-cased constant"
        c["name"] = name
        known[c["const"]] = name
        # trailing top-level string literal arguments = alternative names (varargs)
        alts = []
        for a in reversed(c["args"][1:]):
            if len(a) == 1 and a[0].kind == "string":
                alts.append(a[0].value)
            else:
                break
        c["alternatives"] = list(reversed(alts))
    return consts


# Transform families: explicit names first, then the enum's own section comments.
TRANSFORM_NAME_FAMILY = {
    "and": "logical", "or": "logical", "not": "logical",
    "textmatch": "text",
    "case": "conditional", "coalesce": "null",
    "cast": "conversion",
    "least": "arithmetic", "greatest": "arithmetic",
    "in": "comparison", "notin": "comparison",
    "isdistinctfrom": "comparison", "isnotdistinctfrom": "comparison",
    "extract": "datetime",
    "valuein": "array", "filtermv": "array", "mapvalue": "array",
    "item": "complex",
}
TRANSFORM_SECTION_FAMILY = [
    (r"arithmetic", "arithmetic"), (r"predicate", "comparison"), (r"null handling", "null"),
    (r"case when", "conditional"), (r"type conversion", "conversion"), (r"json", "json"),
    (r"date ?time", "datetime"), (r"array", "array"), (r"clp", "clp"), (r"regexp", "regexp"),
    (r"geo", "geospatial"), (r"vector", "vector"), (r"trigonometr", "trig"),
    (r"complex type", "complex"), (r"time series", "timeseries"), (r"special", "special"),
]


def transform_family(c):
    key = canonical(c["name"])
    if key in TRANSFORM_NAME_FAMILY:
        return TRANSFORM_NAME_FAMILY[key]
    text = " ".join(c.get("section", [])).lower()
    for pat, fam in TRANSFORM_SECTION_FAMILY:
        if re.search(pat, text):
            return fam
    return "other"


def aggregate_family(name):
    n = name.lower().lstrip("$")
    if n.startswith("pinotparentagg") or n.startswith("pinotchildagg"):
        return "internal"
    if n.startswith("funnel"):
        return "funnel"
    if n.endswith("mv"):
        return "mv"
    if n.startswith("percentile"):
        return "percentile"
    if re.search(r"sketch|hll|ull|cpc|theta|tuple", n):
        return "sketch"
    if "distinct" in n or n == "idset":
        return "distinct"
    if n in ("covarpop", "covarsamp", "varpop", "varsamp", "stddevpop", "stddevsamp", "skewness",
             "kurtosis", "fourthmoment", "histogram", "mode"):
        return "statistics"
    if n in ("firstwithtime", "lastwithtime") or n.startswith("timeseries"):
        return "time"
    if n in ("arrayagg", "listagg") or n.startswith("sumarray"):
        return "array"
    if n in ("booland", "boolor"):
        return "boolean"
    if n.startswith("bit"):
        return "bitwise"
    if n.startswith("expr"):
        return "expr"
    if n.startswith("st"):
        return "geospatial"
    return "basic"


def extract_enum_rows(git, notes):
    rows = []
    tpath = find_enum(git, "TransformFunctionType", "pinot-common")
    for c in parse_enum_constants(git, tpath, "TransformFunctionType"):
        if c.get("name_note"):
            notes.append("transform %s: %s" % (c["const"], c["name_note"]))
        rows.append({"kind": "transform", "family": transform_family(c), "name": c["name"],
                     "aliases": merge_aliases(c["name"], [], c["alternatives"]), "sources": [tpath],
                     "deprecated": "Deprecated" in c["annotations"]})
    apath = find_enum(git, "AggregationFunctionType")
    for c in parse_enum_constants(git, apath, "AggregationFunctionType"):
        if c.get("name_note"):
            notes.append("aggregate %s: %s" % (c["const"], c["name_note"]))
        rows.append({"kind": "aggregate", "family": aggregate_family(c["name"]), "name": c["name"],
                     "aliases": merge_aliases(c["name"], [], c["alternatives"]), "sources": [apath],
                     "deprecated": "Deprecated" in c["annotations"]})
    return rows


# --------------------------------------------------------------------------------------------
# Window functions (multi-stage runtime)
# --------------------------------------------------------------------------------------------

WINDOW_CLASS_FAMILY = {"RankBasedWindowFunction": "ranking", "ValueWindowFunction": "value"}


def window_canonical(name):
    return name.replace("$", "").replace("_", "").upper()


def extract_window_rows(git, notes):
    rows = []
    runtime = "pinot-query-runtime/"
    # 1. WINDOW_FUNCTION_MAP = Map.of("NAME", X.class, ...) in window function base classes
    for path in git.grep_files("WINDOW_FUNCTION_MAP"):
        if not (path.startswith(runtime) and is_main_source(path)):
            continue
        ctoks = code_tokens(lex(git.show(path)))
        for i in range(len(ctoks) - 4):
            if ctoks[i].text == "WINDOW_FUNCTION_MAP" and ctoks[i + 1].text == "=":
                # find `Map.of(` / `Map.ofEntries(` directly in the initializer
                j = i + 2
                while j < len(ctoks) and ctoks[j].text not in (";", "("):
                    j += 1
                if j >= len(ctoks) or ctoks[j].text != "(":
                    continue
                head = "".join(t.text for t in ctoks[i + 2:j])
                if head not in ("Map.of", "ImmutableMap.of"):
                    continue   # e.g. the factory's union of the other maps
                close = match_close(ctoks, j)
                args = split_top(ctoks[j + 1:close])
                cls = os.path.splitext(os.path.basename(path))[0]
                fam = WINDOW_CLASS_FAMILY.get(cls, cls.replace("WindowFunction", "").lower() or "window")
                for k in range(0, len(args) - 1, 2):
                    key = args[k]
                    if len(key) == 1 and key[0].kind == "string":
                        rows.append({"kind": "window", "family": fam, "name": key[0].value, "aliases": [],
                                     "sources": [path]})
    # 2. aggregates usable as window functions: the `case "X":` labels of
    #    WindowValueAggregatorFactory (fall-through labels with the same canonical form merge)
    for path in git.grep_files("class WindowValueAggregatorFactory"):
        if not (path.startswith(runtime) and is_main_source(path)):
            continue
        ctoks = code_tokens(lex(git.show(path)))
        # first `switch (functionName)` block
        for i in range(len(ctoks) - 3):
            if ctoks[i].text == "switch" and ctoks[i + 2].text == "functionName":
                j = match_close(ctoks, i + 1) + 1
                end = match_close(ctoks, j)
                groups, cur = [], []
                k = j + 1
                while k < end:
                    t = ctoks[k]
                    if t.kind == "punct" and t.text == "{":
                        k = match_close(ctoks, k) + 1
                        continue
                    if t.text == "case" and ctoks[k + 1].kind == "string":
                        cur.append(ctoks[k + 1].value)
                        k += 3
                        continue
                    if t.text == "default":
                        k += 2
                        continue
                    if cur:
                        groups.append(cur)
                        cur = []
                    k += 1
                if cur:
                    groups.append(cur)
                for g in groups:
                    by_key = OrderedDict()
                    for label in g:
                        by_key.setdefault(window_canonical(label), []).append(label)
                    for labels in by_key.values():
                        rows.append({"kind": "window", "family": "aggregate", "name": labels[0],
                                     "aliases": labels[1:], "sources": [path]})
                break
    # de-duplicate by canonical name
    seen = OrderedDict()
    for r in rows:
        key = window_canonical(r["name"])
        if key in seen:
            seen[key]["aliases"] = merge_aliases(seen[key]["name"], seen[key]["aliases"], r["aliases"])
            continue
        seen[key] = r
    if not seen:
        notes.append("no window functions found")
    return list(seen.values())


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------

# rows are sorted by kind (alphabetically), then family, then name (case-insensitively)
KIND_ORDER = {}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pinot-git", default=DEFAULT_PINOT_GIT,
                    help="Pinot git directory (read with git show/grep at HEAD); default %(default)s")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output TSV (default %(default)s)")
    args = ap.parse_args(argv)

    git = Git(args.pinot_git)
    notes = []
    regs, disabled, skipped = extract_scalars(git, notes)
    rows = build_scalar_rows(regs, notes)
    rows += extract_enum_rows(git, notes)
    rows += extract_window_rows(git, notes)

    rows.sort(key=lambda r: (KIND_ORDER.get(r["kind"], 9), r["kind"], r["family"], r["name"].lower(), r["name"]))

    for r in rows:
        for field in [r["family"], r["name"]] + r["aliases"] + r["sources"]:
            if "\t" in field or "\n" in field:
                raise RuntimeError("tab/newline in field %r" % field)

    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("# Apache Pinot function registry: function names only, extracted from Pinot's sources.\n")
        f.write("# Pinot commit: %s\n" % git.commit)
        f.write("# Regenerate: python3 tools/pinot_registry.py --pinot-git %s\n" % args.pinot_git)
        f.write("# One row per function; aliases are comma-separated; scalar names are unique under Pinot's\n")
        f.write("# canonicalisation (lower-case, '_' removed). Several sources are comma-separated.\n")
        f.write("# Columns (every line not starting with '#' is a row): kind\tfamily\tname\taliases\tsource\n")
        for r in rows:
            f.write("\t".join([r["kind"], r["family"], r["name"], ",".join(r["aliases"]),
                               ",".join(r["sources"])]) + "\n")
        f.write("#\n")
        deprecated = [r for r in rows if r.get("deprecated")]
        if deprecated:
            f.write("# Marked @Deprecated in the enum (still listed above): %s\n" %
                    ", ".join("%s %s" % (r["kind"], r["name"]) for r in deprecated))
        if disabled:
            f.write("# Not listed: @ScalarFunction(enabled = false):\n")
            for name, path, detail in sorted(disabled):
                f.write("#   %s  %s  (%s)\n" % (name, path, detail))
        else:
            f.write("# Not listed: @ScalarFunction(enabled = false) functions: none in main sources.\n")
        if skipped:
            f.write("# Not listed: other @ScalarFunction annotations that FunctionRegistry does not register:\n")
            for what, path, reason in sorted(skipped):
                f.write("#   %s  %s  (%s)\n" % (what, path, reason))

    # summary
    counts = defaultdict(lambda: defaultdict(int))
    for r in rows:
        counts[r["kind"]][r["family"]] += 1
    print("Pinot commit %s -> %s" % (git.commit, args.out))
    total = 0
    for kind in sorted(counts, key=lambda k: KIND_ORDER.get(k, 9)):
        n = sum(counts[kind].values())
        total += n
        print("%-10s %4d" % (kind, n))
        for fam in sorted(counts[kind]):
            print("    %-14s %4d" % (fam, counts[kind][fam]))
    print("total      %4d rows" % total)
    print("disabled (enabled = false) functions: %d" % len(disabled))
    if notes:
        print("notes:")
        for n in notes:
            print("  - " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
