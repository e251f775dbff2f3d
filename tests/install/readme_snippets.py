#!/usr/bin/env python3
"""Builds and runs the README's code examples as written, against an installed prefix, as a reader would.

The README's fenced blocks are taken verbatim:
  - a ```cmake block followed by a ```cpp block is one program: the cmake block is its CMakeLists.txt (it must
    find_package(noiselearn) itself), the cpp block the source its add_executable(NAME SOURCE) names. A cpp block
    without its cmake block, or a cmake block without its program, is an error: every C++ example must build.
  - a ```python block is run as a script with the installed Python module (when the build made one).
Each runs in one working directory holding a copy of the repository's configs/; a run directory they read
("runs/NAME/...", NAME a config) is made first with the README's own command, the installed
`noiselearn train configs/NAME.yaml`.

What is checked, beyond exit status 0 (see check_program and check_python):
  - quickstart (the C++ training example): its report is a certificate with a bracket lower <= upper for each delta
    the config asks for, and the run directory it names holds the table;
  - service (the sampler example): it links no LibTorch, and what it prints minus the answer is a point of the
    table's support;
  - the Python block: each print() whose comment states a value prints it, within half a unit in the last digit the
    comment shows or 1e-12 relative, whichever is larger (see tolerance); a comment "e.g. ..." (random draws) must
    match in shape, and the sampler's draws must land on the table's support.
Usage: readme_snippets.py --build BUILD_DIR --work WORK_DIR [--python PYTHON] [--readme README.md]
Exit 0 when every example builds, runs and prints what the README says.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
FAILURES = []


def fail(message):
    FAILURES.append(message)
    print(f"FAIL: {message}", file=sys.stderr)


def fenced_blocks(readme):
    """(language, text, first line) of each fenced block; fences may be indented, the language is the info word."""
    blocks, language, lines, start = [], None, [], 0
    for number, line in enumerate(readme.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if language is None:
                language, lines, start = stripped[3:].strip().split(" ")[0] or "text", [], number
            else:
                blocks.append((language, "\n".join(lines) + "\n", start))
                language = None
            continue
        if language is not None:
            lines.append(line)
    return blocks


def programs_and_scripts(blocks, readme):
    programs, scripts = [], []
    for i, (language, text, line) in enumerate(blocks):
        if language == "cmake":
            following = blocks[i + 1] if i + 1 < len(blocks) else None
            if following is None or following[0] != "cpp":
                fail(f"{readme}:{line}: a cmake block not followed by the cpp block of its program")
                continue
            target = re.search(r"add_executable\(\s*([\w.-]+)\s+([\w./-]+)\s*\)", text)
            if not target:
                fail(f"{readme}:{line}: a cmake block without add_executable(NAME SOURCE)")
                continue
            programs.append({"name": target.group(1), "source": target.group(2), "cmake": text, "cpp": following[1],
                             "line": line})
        elif language == "cpp" and (i == 0 or blocks[i - 1][0] != "cmake"):
            fail(f"{readme}:{line}: a cpp block without a cmake block before it (the test cannot build it as written)")
        elif language == "python":
            scripts.append({"text": text, "line": line})
    return programs, scripts


def run(command, cwd, log, env=None, timeout=600):
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=timeout)
    log.write_text(result.stdout)
    print(f"  {' '.join(str(c) for c in command)}: exit {result.returncode}, {time.monotonic() - started:.1f} s")
    return result


def table_support(csv_path):
    with open(csv_path) as f:
        return {float(row["x"]) for row in csv.DictReader(f) if float(row["p"]) > 0.0}


def read_runs(text):
    """The run directories an example reads: string literals "runs/NAME/..."."""
    return sorted(set(re.findall(r"""["']runs/([\w.-]+)/""", text)))


def check_program(program, output, cwd):
    name = program["name"]
    if name == "quickstart":
        if not re.search(r"^certificate: \d+ compositions? of ", output, re.M):
            fail("quickstart: the report has no certificate")
        config = (cwd / "configs" / "quickstart.yaml").read_text()
        deltas = re.search(r"deltas:\s*\[([^\]]*)\]", config)
        for delta in (float(d) for d in deltas.group(1).split(",")) if deltas else []:
            line = next((l for l in output.splitlines()
                         if l.strip().startswith("delta = ") and float(l.split()[2]) == delta), None)
            if line is None:
                fail(f"quickstart: the report certifies no epsilon at delta = {delta:g}")
                continue
            lower, upper = (float(v) for v in re.search(r"epsilon in \[([^,]+), ([^\]]+)\]", line).groups())
            if not lower <= upper:
                fail(f"quickstart: at delta = {delta:g} the certified bracket [{lower}, {upper}] is empty")
            print(f"  quickstart: delta = {delta:g}, certified epsilon in [{lower}, {upper}]")
        if not (cwd / "runs" / "quickstart" / "noise.csv").exists():
            fail("quickstart: runs/quickstart/noise.csv was not written")
    elif name == "service":
        answer = float(re.search(r"true_answer\s*=\s*([-+0-9.eE]+)", program["cpp"]).group(1))
        table = read_runs(program["cpp"])
        support = table_support(cwd / "runs" / table[0] / "noise.csv")
        released = [float(v) for v in NUMBER.findall(output)]
        if len(released) != 1 or not any(abs(released[0] - answer - x) <= 1e-9 * max(1.0, abs(x)) for x in support):
            fail(f"service: printed {output.strip()!r}: not the answer {answer:g} plus a point of the table's support")
        else:
            print(f"  service: add_noise({answer:g}) = {released[0]:g}, noise {released[0] - answer:g} in the support")
    else:
        print(f"  {name}: no check beyond exit 0 (add one to check_program)")


def tolerance(expected_text, value):
    """Half a unit in the last digit the README prints, and never below 1e-12 relative. The README prints Python's
    repr (17 digits), which this build reproduces bit for bit; an upper bound also carries the accountant's
    floating-point allowance, which moves at about 1e-13 relative when the implementation does (3e-13 between the
    README's first figures and these). 1e-12 is still 80 times inside the gap between the lower and upper bounds it
    checks (8e-11 relative), so a changed, swapped or dropped bound fails."""
    mantissa = expected_text.lower().split("e")[0]
    exponent = int(expected_text.lower().split("e")[1]) if "e" in expected_text.lower() else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return max(0.5 * 10.0 ** (exponent - decimals), 1e-12 * abs(value))


def leading_literal(comment):
    """The value a comment states: its leading bracketed expression ("(a, b): (lower, upper)") or its first word."""
    if comment[:1] in "([":
        depth = 0
        for i, c in enumerate(comment):
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            if depth == 0:
                return comment[: i + 1]
    return comment.split()[0] if comment.split() else ""


def check_python(script, output, cwd):
    prints = [m for m in (re.match(r"\s*print\((.*?)\)\s*(?:#\s*(.*))?$", l) for l in script["text"].splitlines()) if m]
    lines = output.splitlines()
    if len(lines) != len(prints):
        fail(f"python block (README line {script['line']}): {len(prints)} print() calls but {len(lines)} lines printed")
        return
    for match, line in zip(prints, lines):
        expression, comment = match.group(1), (match.group(2) or "").strip()
        printed = NUMBER.findall(line)
        if comment.startswith("e.g."):
            stated = NUMBER.findall(leading_literal(comment[4:].strip()))
            if len(printed) != len(stated):
                fail(f"print({expression}): printed {line!r}, not the shape of the README's {comment!r}")
            table = read_runs(script["text"])
            if "add_noise" in expression and table:
                answers = [float(v) for v in NUMBER.findall(expression.split("add_noise", 1)[1])]
                support = table_support(cwd / "runs" / table[0] / "noise.csv")
                for answer, released in zip(answers, (float(v) for v in printed)):
                    if not any(abs(released - answer - x) <= 1e-9 * max(1.0, abs(x)) for x in support):
                        fail(f"print({expression}): {released:g} is not {answer:g} plus a point of the table's support")
            print(f"  print({expression}) -> {line}  (README: {comment})")
            continue
        if not comment:
            continue
        stated = NUMBER.findall(leading_literal(comment))
        if len(stated) != len(printed):
            fail(f"print({expression}): printed {line!r}, the README says {comment!r}")
            continue
        for text, value in zip(stated, (float(v) for v in printed)):
            if abs(value - float(text)) > tolerance(text, float(text)):
                fail(f"print({expression}): printed {value!r}, the README says {text} (within {tolerance(text, float(text)):.1g})")
        print(f"  print({expression}) -> {line}  (README: {comment})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--python", default="")
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parents[2] / "README.md")
    args = parser.parse_args()
    started = time.monotonic()
    source_root = args.readme.resolve().parent
    programs, scripts = programs_and_scripts(fenced_blocks(args.readme), args.readme)
    if not programs or not scripts:
        fail(f"{args.readme}: found {len(programs)} C++ programs and {len(scripts)} Python blocks; expected some of each")
    if FAILURES:
        return 1

    work = args.work.resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    prefix = work / "prefix"
    print(f"installing {args.build} into {prefix}")
    if run(["cmake", "--install", str(args.build), "--prefix", str(prefix)], work, work / "install.log").returncode:
        fail(f"cmake --install failed: {work / 'install.log'}")
        return 1
    cwd = work / "readme"
    shutil.copytree(source_root / "configs", cwd / "configs")

    # The run directories the examples read, made by the README's command for them.
    for name in sorted(set(sum((read_runs(p["cpp"]) for p in programs), []) + sum((read_runs(s["text"]) for s in scripts), []))):
        if not (cwd / "configs" / f"{name}.yaml").exists():
            fail(f"an example reads runs/{name}/ but there is no configs/{name}.yaml to make it")
            continue
        made = run([str(prefix / "bin" / "noiselearn"), "train", f"configs/{name}.yaml"], cwd, work / f"train-{name}.log")
        if made.returncode:
            fail(f"noiselearn train configs/{name}.yaml: exit {made.returncode}\n{made.stdout}")
    if FAILURES:
        return 1

    for program in programs:
        project = work / "programs" / program["name"]
        project.mkdir(parents=True)
        (project / "CMakeLists.txt").write_text(program["cmake"])
        (project / program["source"]).write_text(program["cpp"])
        print(f"README line {program['line']}: program {program['name']}")
        configured = run(["cmake", "-S", str(project), "-B", str(project / "build"), f"-DCMAKE_PREFIX_PATH={prefix}",
                          "-DCMAKE_BUILD_TYPE=Release"], project, project / "configure.log")
        built = configured.returncode == 0 and run(["cmake", "--build", str(project / "build"), "-j", "2"], project,
                                                   project / "build.log").returncode == 0
        if not built:
            fail(f"README line {program['line']}: {program['name']} does not build as written:\n"
                 + (project / ("build.log" if configured.returncode == 0 else "configure.log")).read_text()[-4000:])
            continue
        executable = project / "build" / program["name"]
        linked = subprocess.run(["ldd", str(executable)], stdout=subprocess.PIPE, text=True).stdout
        if "without LibTorch" in program["cmake"] or "no LibTorch" in program["cmake"]:
            if "torch" in linked:
                fail(f"{program['name']}: the README says it needs no LibTorch, and it links it")
        ran = run([str(executable)], cwd, project / "run.log")
        if ran.returncode:
            fail(f"README line {program['line']}: {program['name']} exits {ran.returncode}:\n{ran.stdout[-4000:]}")
            continue
        check_program(program, ran.stdout, cwd)

    dist_packages = sorted(prefix.glob("lib/python3*/dist-packages"))
    if not args.python or not dist_packages or not list(dist_packages[0].glob("noiselearn/_noiselearn*.so")):
        print("no Python module in the prefix (the build made none): the Python blocks are not run")
    else:
        environment = dict(os.environ, PYTHONPATH=str(dist_packages[0]))
        for number, script in enumerate(scripts):
            path = work / f"readme_python_{number}.py"
            path.write_text(script["text"])
            print(f"README line {script['line']}: Python block")
            ran = subprocess.run([args.python, str(path)], cwd=cwd, env=environment, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, timeout=600)
            (work / f"readme_python_{number}.log").write_text(ran.stdout + ran.stderr)
            if ran.returncode:
                fail(f"README line {script['line']}: the Python block exits {ran.returncode}:\n{ran.stderr[-4000:]}")
                continue
            check_python(script, ran.stdout, cwd)

    print(f"README examples: {len(programs)} C++ programs, {len(scripts)} Python blocks, "
          f"{'FAILED' if FAILURES else 'ok'} ({time.monotonic() - started:.0f} s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
