#!/usr/bin/env bash
# The structure rules of docs/ARCHITECTURE.md and STYLE.md that a script can check, over src/ and
# app/ (bash and python3 only; well under a second). Exits 1 naming file:line for each breach:
#
#  1. A function over 150 lines (from its opening brace's line to its closing brace's, lambdas
#     and local classes inside it included) that scripts/long-functions.allow does not list.
#     The list holds the functions not yet split (`path:name`, one a line); a listed function
#     that is no longer over 150 lines fails too, so the list only shrinks.
#  1b. A function over 100 lines that scripts/functions-over-100.txt does not list, with the
#     reason its shape needs the length (`path:name | reason`: a writer with one block per
#     section, a hot dispatch kept whole) or as "to split:" with its parts. A listed function no
#     longer over 100 lines fails too.
#  2. A file of src/model/ or src/advisor/ that includes a Qt header (<Q...>, <Qt...>) or uses
#     Q_OBJECT: the analysis core builds and is tested without Qt.
#  3. A file of src/model/io/ that names a file format: io/ maps files, budgets memory and runs
#     threads for any reader; what a format's file is called and how it is read belong to
#     src/model/formats/. FORMAT_NAMES below is the list, matched as written (case-sensitive)
#     anywhere in the file, comments included.
#  4. A file of src/ or app/ outside src/model/formats/ that names a file kind in code
#     (`FileKind::...`): what a kind is and how it is read is its row in the table of
#     src/model/formats/file_kinds.cpp, which the loader, the memory budget check and the views
#     take it from (by the row, or by FileRecord::kind through layout::kindRowNamed).
#  5. A file of src/ or app/ over 800 lines, unless LONG_FILES below lists it with the reason (a
#     generated file or a flat table only). A listed file no longer over 800 lines fails too.
#  6. An include that steps out of the layers (cmake/layers.txt, docs/ARCHITECTURE.md "Layers"):
#     a quoted include of a layer the including file's layer does not reach, of app/ or bench/
#     from src/, or through "../".
#  7. The build's own check of (6), tried: with the compile commands of BUILD_DIR
#     (compile_commands.json), a copy of one source of each layer is preprocessed as its layer
#     compiles it, once as it is (it must pass) and once with an include of a layer above or
#     beside it planted at its top (it must fail on that header).
#
# The scanner is a brace matcher over the text with comments, strings, character literals and
# preprocessor lines blanked: a `{` at namespace or class scope after `)` (and the qualifiers a
# function may carry: const, noexcept, override, final, a trailing return type, a constructor's
# initializer list) opens a function. Usage: scripts/check-structure.sh [SOURCE_DIR [BUILD_DIR]]
# (BUILD_DIR defaults to SOURCE_DIR/build); CHECK_STRUCTURE_LIST=1 prints every function found
# with its length.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
build="${2:-$root/build}"
exec /usr/bin/python3 - "$root" "$build" <<'PY'
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
BUILD = sys.argv[2]
MAX_FILE_LINES = 800
# path -> why it may be longer: a generated file or a flat table, nothing else.
LONG_FILES = {}
LAYERS_FILE = os.path.join(ROOT, "cmake", "layers.txt")
MAX_LINES = 150
INFO_LINES = 100
LIST = os.environ.get("CHECK_STRUCTURE_LIST") == "1"  # print every function with its length
ALLOW_FILE = os.path.join(ROOT, "scripts", "long-functions.allow")
SHAPE_FILE = os.path.join(ROOT, "scripts", "functions-over-100.txt")

# File names, extensions and folder patterns of the profiler exports (docs FORMATS.md).
FORMAT_NAMES = [
    ".json", ".csv", ".db", ".log",
    "kernel_details", "trace_view", "op_summary", "op_statistic", "api_statistic",
    "task_time", "step_trace", "communication_matrix", "operator_details", "operator_memory",
    "memory_record", "npu_mem", "npu_module_mem", "l2_cache", "simplified_tasks",
    "profiler_info", "profiler_metadata", "info_json", "msprof", "ascend_pytorch_profiler",
    "analysis.db", "ASCEND_PROFILER_OUTPUT", "PROF_", "_ascend_pt", "device_",
]

QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&", "try"}
NOT_NAMES = {"noexcept", "decltype", "alignas", "alignof", "sizeof", "requires", "__attribute__",
             "static_assert", "throw"}


def blank(text):
    """The text with comments, string and char literals and preprocessor lines replaced by
    spaces (newlines kept, so offsets and line numbers stay)."""
    out = list(text)
    n = len(text)
    i = 0
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n:  # to the end of the line, following backslash continuations
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            wipe(i, j)
            i = j
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
                                                         or text[i - 1] in "uUL8"):
            k = text.find("(", i + 2)
            delim = text[i + 2:k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            wipe(i, j)
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum())):
            # a ' between two digits or letters is a digit separator (1'000), not a char literal
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            wipe(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def strip_suffix(head):
    """The declarator with the function qualifiers after its parameter list removed; ends in ')'
    when `head` declares a function."""
    h = head.rstrip()
    arrow = find_top_level(h, "->")
    if arrow >= 0:
        h = h[:arrow].rstrip()
    while True:
        m = re.search(r"(?:\b(const|noexcept|override|final|mutable|volatile|try)|(&&|&))\s*$", h)
        if m:
            h = h[:m.start()].rstrip()
            continue
        if h.endswith(")"):
            open_at = matching_open(h, len(h) - 1)
            before = h[:open_at].rstrip()
            if re.search(r"\b(noexcept|requires)$", before):
                h = before[: -len(re.search(r"\w+$", before).group(0))].rstrip()
                continue
        return h


def find_top_level(h, token):
    depth = 0
    for k, ch in enumerate(h):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and h.startswith(token, k):
            return k
    return -1


def matching_open(h, close_at):
    depth = 0
    for k in range(close_at, -1, -1):
        if h[k] == ")":
            depth += 1
        elif h[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return 0


def init_list_colon(h):
    """Offset of a constructor's initializer-list ':' (a lone ':' after the parameter list at
    paren depth 0), or -1."""
    depth = 0
    seen_params = False
    for k, ch in enumerate(h):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                seen_params = True
        elif ch == ":" and depth == 0 and seen_params:
            if h[k - 1:k] != ":" and h[k + 1:k + 2] != ":":
                return k
    return -1


def function_name(head):
    h = head
    colon = init_list_colon(h)
    if colon >= 0:
        h = h[:colon]
    h = strip_suffix(h)
    while h.endswith(")"):
        open_at = matching_open(h, len(h) - 1)
        before = h[:open_at].rstrip()
        m = re.search(r"(operator\s*(\(\s*\)|[^\w\s(]+|\w[\w\s:<>*&]*)|~?[A-Za-z_]\w*(\s*<[^<>]*>)?(\s*::\s*~?[A-Za-z_]\w*(\s*<[^<>]*>)?)*)\s*$", before)
        if m and m.group(0).split("::")[-1].strip() not in NOT_NAMES:
            name = re.sub(r"\s+", "", m.group(1))
            name = re.sub(r"^(?:[A-Za-z_]\w*::)*(operator)", lambda x: x.group(0), name)
            return name
        if before.endswith("]"):  # a lambda: the variable it initializes
            m = re.search(r"([A-Za-z_]\w*)\s*=\s*\[[^\]]*\]\s*$", before)
            if m:
                return m.group(1)
        h = before
    return None


def is_function_head(head):
    h = head
    colon = init_list_colon(h)
    if colon >= 0:
        return True
    h = strip_suffix(h)
    return h.endswith(")") and function_name(head) is not None


ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)(?:\s+(?:Q_SLOTS|slots))?|signals|Q_SIGNALS|Q_SLOTS)\s*:(?!:)")


def scan(path, text):
    """(name, first line, last line) of each function defined at namespace or class scope."""
    t = blank(text)
    functions = []
    # scope stack entries: (kind, name, open_offset); kind: ns, class, func, other
    stack = []
    head_start = 0
    head_parens = 0
    hdr_braces = []  # offsets of '{' opened inside a declarator (lambda in an initializer list)
    line_of = []
    line = 1
    for ch in t:
        line_of.append(line)
        if ch == "\n":
            line += 1
    in_code = lambda: any(k in ("func", "other") for k, _, _ in stack)
    i = 0
    n = len(t)
    while i < n:
        c = t[i]
        if in_code():
            if c == "{":
                stack.append(("inner", None, i))
            elif c == "}":
                kind, name, start = stack.pop()
                if kind == "func":
                    functions.append((name, line_of[start], line_of[i]))
                if not in_code():
                    head_start = i + 1
                    head_parens = 0
            i += 1
            continue
        if hdr_braces:
            if c == "{":
                hdr_braces.append(i)
            elif c == "}":
                hdr_braces.pop()
            i += 1
            continue
        if c == "(":
            head_parens += 1
        elif c == ")":
            head_parens -= 1
        elif c == ";" and head_parens == 0:
            head_start = i + 1
        elif c == "{":
            head = t[head_start:i]
            head = ACCESS.sub("", head.lstrip())
            while ACCESS.match(head):
                head = ACCESS.sub("", head)
            stripped = head.strip()
            if head_parens > 0 or (init_list_colon(stripped) >= 0 and re.search(r"[\w>]$", stripped)
                                   and not re.search(r"\b(const|noexcept|override|final|mutable)$", stripped)):
                hdr_braces.append(i)  # a braced initializer or a lambda inside the declarator
            elif re.search(r"(^|\s)(namespace|extern)\b", stripped) and not stripped.endswith(")"):
                stack.append(("ns", None, i))
                head_start = i + 1
            elif is_function_head(stripped):
                name = function_name(stripped)
                classes = [nm for k, nm, _ in stack if k == "class" and nm]
                if classes and "::" not in (name or ""):
                    name = "::".join(classes + [name])
                stack.append(("func", name, i))
            elif re.search(r"\b(class|struct|union|enum)\b", stripped) and "=" not in stripped:
                m = re.search(r"\b(?:class|struct|union)\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^:]|$)", stripped)
                stack.append(("class", m.group(1) if m else None, i))
                head_start = i + 1
            else:
                stack.append(("other", None, i))
        elif c == "}":
            if stack:
                stack.pop()
            head_start = i + 1
            head_parens = 0
        i += 1
    return functions


def read_layers():
    """[(name, folder, [names below])] from cmake/layers.txt, lowest first."""
    layers = []
    with open(LAYERS_FILE, encoding="utf-8") as fh:
        for line in fh:
            if re.match(r"[a-z]", line):
                name, folder, *below = line.split()
                layers.append((name, folder, below))
    return layers


def reach(layers):
    """name -> the set of layers its sources may include: itself and, through its links, those below."""
    below = {name: b for name, _, b in layers}
    out = {}
    for name, _, _ in layers:  # lowest first: what a layer links to is already known
        out[name] = {name}.union(*(out[b] for b in below[name]))
    return out


def layer_of(rel, layers):
    """The layer of a file (path below ROOT), "app" for app/, else None."""
    if rel.startswith("app/"):
        return "app"
    best = None
    for name, folder, _ in layers:
        if rel.startswith(f"src/{folder}/") and (best is None or len(folder) > len(best[1])):
            best = (name, folder)
    return best[0] if best else None


def included_layer(path, layers):
    """The layer a quoted include names ("model/store/ids.h" -> store), "app"/"bench", or None
    for a file of the includer's own folder."""
    top = path.split("/", 1)[0]
    if top in ("app", "bench"):
        return top
    for name, folder, _ in layers:
        if path.startswith(folder + "/"):
            return name
    return None


def include_problems(rel, text, layers, reaches):
    problems = []
    mine = layer_of(rel, layers)
    if mine is None:
        return problems
    for k, line in enumerate(text.split("\n"), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        if inc.startswith("../") or "/../" in inc:
            problems.append(f'{rel}:{k}: includes "{inc}" through ".."; name it from src/ as its layer exports it')
            continue
        target = included_layer(inc, layers)
        if mine == "app" or target is None:
            continue
        if target in ("app", "bench") or target not in reaches[mine]:
            problems.append(f'{rel}:{k}: the {mine} layer includes "{inc}" of {target}, which it does not '
                            "stand on (cmake/layers.txt); the build refuses it")
    return problems


def compile_entry(entry):
    """A compile command as a list of arguments, without its output and dependency files."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a in ("-c", "-MD", "-MMD", entry["file"]):
            pass
        else:
            out.append(a)
    return out


def preprocess(entry, source, tmp, planted):
    """Preprocesses a copy of `source` (its own folder still searched for its local headers) with
    `planted` as its first line, or none; the compiler's exit code and error text."""
    copy = os.path.join(tmp, os.path.basename(source))
    with open(source, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    with open(copy, "w", encoding="utf-8") as fh:
        fh.write((f'#include "{planted}"\n' if planted else "") + text)
    args = compile_entry(entry) + ["-iquote", os.path.dirname(source), "-E", copy, "-o", os.devnull]
    run = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    return run.returncode, run.stderr


def sources_of(entries):
    """(source, compile command) for each source the build compiles. A unity build's command
    compiles a generated file that includes a batch of sources: each of those has that command."""
    for e in entries:
        f = e["file"]
        if os.path.basename(os.path.dirname(f)) == "Unity" and f.endswith(".cxx") and os.path.exists(f):
            with open(f, encoding="utf-8", errors="replace") as fh:
                for m in re.finditer(r'^#include "([^"]+)"', fh.read(), re.M):
                    yield m.group(1), e
        else:
            yield f, e


def plant_problems(layers, reaches):
    """Rule 7: for each layer with a layer above or beside it, a wrong-way include planted in a
    copy of one of its sources must fail to compile, and the copy without it must not."""
    commands = os.path.join(BUILD, "compile_commands.json")
    if not os.path.exists(commands):
        return [f"{commands}: missing (configure the build first); the planted wrong-way includes were not tried"], 0, 0
    with open(commands, encoding="utf-8") as fh:
        entries = json.load(fh)
    problems = []
    tried = refused = 0
    tmp = tempfile.mkdtemp(prefix="check-structure-")
    try:
        for name, folder, _ in layers:
            others = [(n, f) for n, f, _ in layers if n not in reaches[name]]
            if not others:
                continue  # the top layer: nothing above it
            src_dir = os.path.join(ROOT, "src", folder)
            mine = [(f, e) for f, e in sources_of(entries) if os.path.dirname(os.path.realpath(f)) == os.path.realpath(src_dir)
                    and f.endswith(".cpp")]
            if not mine:
                problems.append(f"src/{folder}: no compile command in {commands}; the planted include was not tried")
                continue
            source, entry = min(mine, key=lambda m: os.path.getsize(m[0]))
            other_name, other_folder = others[0]
            headers = sorted(h for h in os.listdir(os.path.join(ROOT, "src", other_folder)) if h.endswith(".h"))
            wrong = f"{other_folder}/{headers[0]}"
            rel = os.path.relpath(source, ROOT)
            code, err = preprocess(entry, source, tmp, None)
            if code != 0:
                problems.append(f"{rel}: a copy of it does not preprocess as its layer compiles it: "
                                f"{err.strip().splitlines()[0] if err.strip() else code}")
                continue
            code, err = preprocess(entry, source, tmp, wrong)
            tried += 1
            if code == 0 or wrong not in err:
                problems.append(f'{rel}: with "#include \\"{wrong}\\"" planted ({name} including {other_name}) it '
                                "still compiles: the layer's include path reaches beyond cmake/layers.txt")
            else:
                refused += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return problems, tried, refused


def main():
    sources = []
    for top in ("src", "app"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith((".cpp", ".h", ".inl", ".h.in")):
                    sources.append(os.path.join(dirpath, f))
    problems = []
    layers = read_layers()
    reaches = reach(layers)
    long_files = {}  # path -> lines
    over = {}  # "path:name" -> (line, lines)
    over_info = 0
    long_info = {}  # path:name -> (first line, lines) of the functions over INFO_LINES
    for full in sources:
        rel = os.path.relpath(full, ROOT)
        with open(full, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        file_lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if file_lines > MAX_FILE_LINES:
            long_files[rel] = file_lines
            if rel not in LONG_FILES:
                problems.append(f"{rel}: {file_lines} lines (over {MAX_FILE_LINES}); split it by meaning")
        problems += include_problems(rel, text, layers, reaches)
        for name, first, last in scan(rel, text):
            lines = last - first + 1
            if lines > INFO_LINES:
                over_info += 1
                key = f"{rel}:{name}"
                if key not in long_info or long_info[key][1] < lines:
                    long_info[key] = (first, lines)
            if LIST:
                print(f"{lines:5d} {rel}:{first}: {name}")
            if lines > MAX_LINES:
                key = f"{rel}:{name}"
                if key not in over or over[key][1] < lines:
                    over[key] = (first, lines)
        if rel.startswith(("src/model/", "src/advisor/")):
            blanked = blank(text).split("\n")
            for k, line in enumerate(text.split("\n"), 1):
                if re.match(r"\s*#\s*include\s*<Q", line):
                    problems.append(f"{rel}:{k}: includes a Qt header ({line.strip()}); "
                                    "src/model and src/advisor build without Qt")
                if re.search(r"\bQ_OBJECT\b", blanked[k - 1]):
                    problems.append(f"{rel}:{k}: uses Q_OBJECT; src/model and src/advisor build without Qt")
        if not rel.startswith("src/model/formats/"):
            for k, line in enumerate(blank(text).split("\n"), 1):
                m = re.search(r"\bFileKind\s*::\s*(\w+)", line)
                if m:
                    problems.append(f"{rel}:{k}: names the file kind FileKind::{m.group(1)}; what a kind is and "
                                    "how it is read is its row in src/model/formats/file_kinds.cpp")
        if rel.startswith("src/model/io/"):
            for k, line in enumerate(text.split("\n"), 1):
                for word in FORMAT_NAMES:
                    if word in line:
                        problems.append(f"{rel}:{k}: names the file format '{word}'; "
                                        "format knowledge belongs to src/model/formats/")
    for rel, why in sorted(LONG_FILES.items()):
        if rel not in long_files:
            problems.append(f"{rel}: no longer over {MAX_FILE_LINES} lines (or gone); remove it from LONG_FILES")
    planted, tried, refused = plant_problems(layers, reaches)
    problems += planted
    allowed = []
    if os.path.exists(ALLOW_FILE):
        with open(ALLOW_FILE, encoding="utf-8") as fh:
            for k, line in enumerate(fh, 1):
                entry = line.split("#", 1)[0].strip()
                if entry:
                    allowed.append((k, entry))
    allowed_set = {e for _, e in allowed}
    for key, (first, lines) in sorted(over.items()):
        if key not in allowed_set:
            path, name = key.split(":", 1)
            problems.append(f"{path}:{first}: function {name} is {lines} lines (over {MAX_LINES}); "
                            "split it by meaning")
    for k, entry in allowed:
        if entry not in over:
            problems.append(f"scripts/long-functions.allow:{k}: {entry} is no longer over {MAX_LINES} lines "
                            "(or was renamed); remove it from the list")
    shapes = []
    if os.path.exists(SHAPE_FILE):
        with open(SHAPE_FILE, encoding="utf-8") as fh:
            for k, line in enumerate(fh, 1):
                if line.startswith("#") or not line.strip():
                    continue
                entry, _, reason = line.partition("|")
                shapes.append((k, entry.strip(), reason.strip()))
    shape_names = {e for _, e, _ in shapes}
    for key, (first, lines) in sorted(long_info.items()):
        if key not in shape_names and lines <= MAX_LINES:
            path, name = key.split(":", 1)
            problems.append(f"{path}:{first}: function {name} is {lines} lines (over {INFO_LINES}); split it by "
                            "meaning, or give the reason its shape needs the length in scripts/functions-over-100.txt")
    for k, entry, reason in shapes:
        if entry not in long_info:
            problems.append(f"scripts/functions-over-100.txt:{k}: {entry} is no longer over {INFO_LINES} lines "
                            "(or was renamed); remove it from the list")
        elif not reason:
            problems.append(f"scripts/functions-over-100.txt:{k}: {entry} has no reason")
    to_split = sum(1 for _, _, reason in shapes if reason.startswith("to split:"))
    print(f"check-structure: {len(sources)} files, {over_info} functions over {INFO_LINES} lines "
          f"({to_split} of them still to split), {len(over)} over {MAX_LINES} ({len(allowed_set)} allowed); "
          f"{len(long_files)} files over {MAX_FILE_LINES} lines ({len(LONG_FILES)} allowed); "
          f"{tried} wrong-way includes planted in copies, {refused} of them refused by the build")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-structure: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


sys.exit(main())
PY
