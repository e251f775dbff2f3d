#!/usr/bin/env python3
"""`pip install --no-build-isolation .` from a clone into a fresh venv, as the README's Python section says it, then
the README's Python blocks run with that venv's Python.

The steps, each of which must succeed:
  1. the clone: the repository's files (git's tracked and untracked-but-not-ignored files; without git, the tree less
     its build folders) copied to WORK/clone, so that no build folder of the source tree is reused and pip writes
     nothing into it;
  2. the README's install block (the ```sh block that follows the paragraph starting "**Python**") run verbatim by
     bash in the clone, with HOME=WORK/home (so its ~/venvs/... is made there), PYTHONPATH cleared and pip kept off
     the network (PIP_NO_INDEX: numpy must come from the system, through --system-site-packages). The block must
     make the venv with --system-site-packages, activate it and run `pip install --no-build-isolation .`;
  3. the module imports from that venv's site-packages;
  4. `pip wheel --no-build-isolation --no-deps .` in the same clone writes a wheel named with CMakeLists.txt's
     project version and holding the module (it reuses step 2's build folder: seconds);
  5. every ```python block of the README runs with the venv's Python in the clone, where a run directory it reads
     (runs/NAME/) is made first with the build's `noiselearn train configs/NAME.yaml` (--cli); what the blocks print
     is checked as readme_snippets.py checks it (the values their comments state).
Cost: step 2 builds the module and the four libraries it links from scratch (CMAKE_BUILD_PARALLEL_LEVEL jobs,
default 2): 133 s on two cores, 213 s with another build sharing them; the rest takes about 5 s.
Usage: pip_install.py --work WORK_DIR --cli BUILD/src/cli/noiselearn [--readme README.md]
Exit 0 when every step succeeds.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the import below
sys.path.insert(0, str(Path(__file__).resolve().parent))
import readme_snippets as snippets  # noqa: E402  (the README's blocks are read and checked as that test does)

INSTALL_COMMAND = "pip install --no-build-isolation ."


def copy_clone(source, destination):
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if listed.returncode == 0 and listed.stdout:
        for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
            path = source / name
            if path.is_file():  # a tracked file deleted in the work tree is not part of the clone
                (destination / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, destination / name)
    else:
        shutil.copytree(source, destination, ignore=shutil.ignore_patterns(
            ".git", "build", "build-*", "runs", "dist", "*.egg-info"))


def install_block(blocks, readme):
    """The ```sh block that follows the README's "**Python**" paragraph."""
    lines = readme.read_text().splitlines()
    section = next((number for number, line in enumerate(lines, 1) if line.startswith("**Python**")), None)
    if section is None:
        snippets.fail(f"{readme}: no paragraph starting '**Python**' (the Python section)")
        return None
    block = next((b for b in blocks if b[2] > section), None)
    if block is None or block[0] != "sh":
        snippets.fail(f"{readme}:{section}: the Python section does not start with a ```sh block (the install commands)")
        return None
    language, text, line = block
    for needed in (INSTALL_COMMAND, "-m venv --system-site-packages"):
        if needed not in text:
            snippets.fail(f"{readme}:{line}: the Python section's install block has no '{needed}'")
    return None if snippets.FAILURES else block


def run(command, cwd, log, env, timeout=1500):
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=timeout)
    log.write_text(result.stdout)
    seconds = time.monotonic() - started
    print(f"  {' '.join(str(c) for c in command)}: exit {result.returncode}, {seconds:.1f} s (log: {log})")
    return result, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--cli", required=True, type=Path, help="the build's noiselearn, for the runs the blocks read")
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parents[2] / "README.md")
    args = parser.parse_args()
    started = time.monotonic()
    readme = args.readme.resolve()
    source = readme.parent
    blocks = snippets.fenced_blocks(readme)
    block = install_block(blocks, readme)
    scripts = [{"text": text, "line": line} for language, text, line in blocks if language == "python"]
    if not scripts:
        snippets.fail(f"{readme}: no ```python block")
    if snippets.FAILURES:
        return 1

    work = args.work.resolve()
    shutil.rmtree(work, ignore_errors=True)
    clone, home = work / "clone", work / "home"
    clone.mkdir(parents=True)
    home.mkdir()
    copy_clone(source, clone)
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    environment.update(HOME=str(home), PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")

    # 2. The README's install block, verbatim; then where its venv is.
    venv_file = work / "venv-path"
    script = work / "install.sh"
    script.write_text(f"set -e\ncd {clone}\n{block[1]}\nprintf '%s\\n' \"${{VIRTUAL_ENV:-}}\" > {venv_file}\n")
    print(f"README line {block[2]}: the install block, in a fresh venv under {home}")
    installed, install_seconds = run(["bash", str(script)], clone, work / "install.log", environment)
    if installed.returncode:
        snippets.fail(f"README line {block[2]}: the install block exits {installed.returncode}:\n"
                      f"{installed.stdout[-6000:]}")
        return 1
    venv = Path(venv_file.read_text().strip() or "/nonexistent").resolve()
    python = venv / "bin" / "python"
    if not python.is_file():
        snippets.fail(f"README line {block[2]}: the install block activates no venv (VIRTUAL_ENV is {str(venv)!r})")
        return 1

    # 3. The module comes from the venv.
    imported = subprocess.run([str(python), "-c", "import noiselearn; print(noiselearn.__file__)"], cwd=work,
                              env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    location = Path(imported.stdout.strip().splitlines()[-1]).resolve() if imported.stdout.strip() else Path()
    if imported.returncode or venv not in location.parents:
        snippets.fail(f"noiselearn does not import from the venv {venv}:\n{imported.stdout[-3000:]}")
        return 1
    print(f"  import noiselearn: {location}")

    # 4. pip wheel in the same clone.
    version = re.search(r"project\(\s*noiselearn\s+VERSION\s+([0-9.]+)", (source / "CMakeLists.txt").read_text())
    version = version.group(1) if version else "(no project version in CMakeLists.txt)"
    wheels = work / "wheels"
    wheeled, _ = run([str(python), "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", str(wheels), "."],
                     clone, work / "wheel.log", environment)
    made = sorted(wheels.glob("noiselearn-*.whl")) if wheels.is_dir() else []
    if wheeled.returncode or len(made) != 1:
        snippets.fail(f"pip wheel --no-build-isolation .: exit {wheeled.returncode}, wheels {made}:\n"
                      f"{wheeled.stdout[-3000:]}")
    else:
        names = zipfile.ZipFile(made[0]).namelist()
        if not made[0].name.startswith(f"noiselearn-{version}-"):
            snippets.fail(f"{made[0].name}: not named with CMakeLists.txt's version {version}")
        if not any(re.fullmatch(r"noiselearn/_noiselearn\.[^/]*\.so", name) for name in names) or \
                "noiselearn/__init__.py" not in names or "noiselearn/accountants.py" not in names:
            snippets.fail(f"{made[0].name} does not hold the package (noiselearn/__init__.py, accountants.py and "
                          f"_noiselearn*.so): {names}")
        print(f"  {made[0].name}: {', '.join(names)}")

    # 5. The README's Python blocks, with the venv's Python, in the clone.
    for name in sorted(set(sum((snippets.read_runs(s["text"]) for s in scripts), []))):
        made_run, _ = run([str(args.cli.resolve()), "train", f"configs/{name}.yaml"], clone,
                          work / f"train-{name}.log", environment)
        if made_run.returncode:
            snippets.fail(f"noiselearn train configs/{name}.yaml: exit {made_run.returncode}\n{made_run.stdout[-3000:]}")
    if snippets.FAILURES:
        return 1
    for number, script in enumerate(scripts):
        path = work / f"readme_python_{number}.py"
        path.write_text(script["text"])
        print(f"README line {script['line']}: Python block, with {python}")
        ran = subprocess.run([str(python), str(path)], cwd=clone, env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=600)
        (work / f"readme_python_{number}.log").write_text(ran.stdout + ran.stderr)
        if ran.returncode:
            snippets.fail(f"README line {script['line']}: the Python block exits {ran.returncode}:\n{ran.stderr[-4000:]}")
            continue
        snippets.check_python(script, ran.stdout, clone)

    print(f"pip install: {install_seconds:.0f} s (venv and install block); {len(scripts)} Python blocks; "
          f"{'FAILED' if snippets.FAILURES else 'ok'} ({time.monotonic() - started:.0f} s in all)")
    return 1 if snippets.FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
