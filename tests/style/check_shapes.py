"""The shapes issue 54 set, kept: no function over 120 lines in src/, models/, losses/ (the Python bindings' lists of
defs excepted), and no type in src/accounting/ with more than 12 data members. Reads the sources as text: comments and
strings blanked, braces matched; a function is a brace block at namespace or class level whose head ends like a
signature, a data member a class-level statement without parentheses.

Usage: python3 check_shapes.py ROOT   (exit 1 and one line per offender when a shape is exceeded)."""
import pathlib
import re
import sys

MAX_FUNCTION_LINES = 120
MAX_DATA_MEMBERS = 12
# A binding's list of m.def(...) calls reads as one list, not as logic to split.
BINDING = re.compile(r"\bvoid bind_\w+\(py::module_")
KEYWORDS = ("if", "for", "while", "switch", "catch", "namespace", "class", "struct", "enum", "union", "else", "do",
            "try", "return")


def blank(source):
    """The source with comments and string or character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif source[i] in "\"'":
            quote = source[i]
            if quote == '"' and i > 0 and source[i - 1] == "R":
                delimiter = re.match(r'R"([^(]*)\(', source[i - 1:]).group(1)
                j = source.find(")" + delimiter + '"', i) + len(delimiter) + 2
            else:
                j = i + 1
                while j < n and source[j] != quote:
                    j += 2 if source[j] == "\\" else 1
                j += 1
            out.append(quote + re.sub(r"[^\n]", " ", source[i + 1:j - 1]) + quote)
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def is_function_head(head):
    if "(" not in head or ")" not in head:
        return False
    if not re.search(r"\)\s*(const|override|final|noexcept|->[^;{]*|\s)*$", head):
        return False
    first = re.match(r"\s*(\w+)", head)
    if first and first.group(1) in KEYWORDS:
        return False
    if "=" in head.split("(")[0]:
        return False
    return not re.search(r"\[[^\]]*\]\s*\([^)]*\)\s*(mutable)?\s*(->.*)?$", head)  # a lambda


def long_functions(path):
    text = blank(path.read_text(encoding="utf-8"))
    stack, last, found = [], 0, []
    for i, c in enumerate(text):
        if c == "{":
            head = text[last:i].strip()
            stack.append((is_function_head(head), text.count("\n", 0, i) + 1, head.split("\n")[-1].strip()))
            last = i + 1
        elif c == "}":
            if stack:
                function, start, name = stack.pop()
                if function and not any(s[0] for s in stack):
                    lines = text.count("\n", 0, i) + 1 - start + 1
                    if lines > MAX_FUNCTION_LINES and not BINDING.search(name):
                        found.append(f"{path}:{start}: {name[:70]} is {lines} lines (at most {MAX_FUNCTION_LINES})")
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def wide_types(path):
    text = blank(path.read_text(encoding="utf-8"))
    found = []
    for m in re.finditer(r"\b(struct|class)\s+(\w+)[^;{(]*\{", text):
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        depth, statement, members = 0, "", 0
        for c in text[m.end():j - 1]:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                statement = "" if depth == 0 else statement
            elif depth == 0 and c == ";":
                s = re.sub(r"^(public|private|protected)\s*:\s*", "", statement.strip())
                declarator = s.split("=")[0]
                if s and not re.match(r"(using|static|friend|typedef|enum|struct|class|template)\b", s) \
                        and "(" not in declarator and "operator" not in s:
                    members += declarator.count(",") + 1 if "<" not in declarator else 1
                statement = ""
            elif depth == 0:
                statement += c
        if members > MAX_DATA_MEMBERS:
            found.append(f"{path}: {m.group(2)} has {members} data members (at most {MAX_DATA_MEMBERS})")
    return found


def main(root):
    root = pathlib.Path(root)
    sources = [p for d in ("src", "models", "losses") for p in sorted((root / d).rglob("*")) if p.suffix in (".cpp", ".hpp")]
    offenders = [line for p in sources for line in long_functions(p)]
    offenders += [line for p in sorted((root / "src" / "accounting").rglob("*")) if p.suffix in (".cpp", ".hpp")
                  for line in wide_types(p)]
    for line in offenders:
        print(line)
    if offenders:
        return 1
    print(f"check_shapes.py: {len(sources)} files, no function over {MAX_FUNCTION_LINES} lines (bindings excepted), "
          f"no accounting type over {MAX_DATA_MEMBERS} data members")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
