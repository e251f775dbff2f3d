"""`pip install .` and `pip wheel .`: the Python package `noiselearn` (its compiled core built by the project's CMake).

setuptools' build_ext (CMakeBuild below) configures the project with NOISELEARN_PYTHON_ONLY (the module and the four
libraries it links; no LibTorch, CLI, tests or benchmarks) in a folder under its build_temp (build-pip/ in the clone,
kept, so that a second install rebuilds only what changed), builds the target noiselearn_python (Release, for the
Python that runs pip, CMAKE_BUILD_PARALLEL_LEVEL jobs, default 2) and puts the module in the wheel.
Offline, with Debian's python3-setuptools, python3-wheel and pybind11-dev: `pip install --no-build-isolation .`.
CMAKE_ARGS (split as the shell does) adds options to the configure step, e.g. CMAKE_ARGS=-DCMAKE_CXX_COMPILER=clang++.
A failed CMake step stops the build with CMake's error repeated as the last thing pip prints.
For development nothing of this is needed: PYTHONPATH=build/python after ./build.sh build.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections import deque
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import ExecError

ROOT = Path(__file__).resolve().parent


def project_version():
    """The version of CMakeLists.txt's project() line: one place for it."""
    match = re.search(r"project\(\s*noiselearn\s+VERSION\s+([0-9][0-9.]*)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        raise ExecError(f"{ROOT / 'CMakeLists.txt'}: no 'project(noiselearn VERSION x.y.z' line to take the version from")
    return match.group(1)


def build_jobs():
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "").strip() or "2"
    if not jobs.isdigit() or int(jobs) < 1:
        raise ExecError(f"CMAKE_BUILD_PARALLEL_LEVEL={jobs!r}: not a positive whole number of jobs")
    return jobs


def the_error(lines, step):
    """What to repeat of a failed step's output: CMake's own error block, else the compiler's errors, else the tail."""
    lines = list(lines)
    first = next((i for i, line in enumerate(lines) if line.startswith("CMake Error")), None)
    if first is not None:
        return lines[first:first + 40]
    compiler = [line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)]
    return compiler[:30] if compiler and step == "build" else lines[-30:]


def run_step(command, step):
    """Runs one CMake step, its output passed through as it comes; on failure, an ExecError holding CMake's error."""
    print(f"noiselearn: {shlex.join(command)}", flush=True)
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   errors="replace")
    except FileNotFoundError:
        raise ExecError(f"the CMake {step} step cannot start: {command[0]} was not found "
                        "(Debian: apt-get install cmake; ./build.sh installs it)") from None
    kept = deque(maxlen=4000)
    for line in process.stdout:
        sys.stdout.write(line)
        kept.append(line.rstrip("\n"))
    sys.stdout.flush()
    if process.wait() != 0:
        error = "\n".join("    " + line for line in the_error(kept, step))
        raise ExecError(f"the CMake {step} step failed (exit {process.returncode}): {shlex.join(command)}\n"
                        f"  {'CMake' if step == 'configure' else 'The build'} said:\n{error}")


def pybind11_hint(extra):
    """pybind11 from PyPI (pip's isolated build) keeps its CMake package inside the Python package; Debian's
    pybind11-dev is found by CMake itself. The hint is given only where the package is really there."""
    if any(arg.startswith("-Dpybind11_DIR=") for arg in extra):
        return []
    try:
        import pybind11
        folder = Path(pybind11.get_cmake_dir())
    except (ImportError, AttributeError, OSError, ValueError):
        return []
    return [f"-Dpybind11_DIR={folder}"] if (folder / "pybind11Config.cmake").is_file() else []


class CMakeExtension(Extension):
    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = Path(self.build_temp).resolve() / "cmake"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DNOISELEARN_PYTHON_ONLY=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        extra = shlex.split(os.environ.get("CMAKE_ARGS", ""))
        configure += pybind11_hint(extra)
        run_step(configure + extra, "configure")
        run_step(["cmake", "--build", str(build_dir), "--config", "Release", "--target", ext.target, "--parallel",
                  build_jobs()], "build")
        built = build_dir / "python" / "noiselearn" / ("_noiselearn" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.is_file():
            found = sorted(p.name for p in (build_dir / "python" / "noiselearn").glob("_noiselearn*")) or "nothing"
            raise ExecError(f"the build succeeded but {built} is not there (found: {found})")
        destination = Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(built, destination)
        print(f"noiselearn: {built} -> {destination}", flush=True)


setup(
    version=project_version(),
    # The package noiselearn: its Python files from src/python/noiselearn, its compiled core noiselearn._noiselearn.
    ext_modules=[CMakeExtension("noiselearn._noiselearn", target="noiselearn_python")],
    cmdclass={"build_ext": CMakeBuild},
    packages=["noiselearn"],
    package_dir={"noiselearn": "src/python/noiselearn"},
    py_modules=[],
    # Not build/: that is the CMake build of ./build.sh, which setuptools' folders would clutter.
    options={"build": {"build_base": "build-pip"}},
    zip_safe=False,
)
