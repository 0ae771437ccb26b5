"""Check that `pip install -r requirements.txt` needs no compiler on every supported platform.

    python scripts/check_wheels.py            # the whole matrix, a table, exit 1 on a failure
    python scripts/check_wheels.py --python 3.14 --platform "macOS arm64"

For each supported Python and platform, pip resolves the pinned requirements (and everything
they pull in) as if it were installing on that machine, accepting wheels only
(``--only-binary=:all: --python-version X --platform Y --dry-run``). pip reads the packages'
metadata from the registry; nothing is installed and no wheel is built. A combination passes
when every package resolves to a wheel, or when the only packages without one are the known
exceptions listed below, each with its reason and what a student has to do. A known exception
is still checked: its source archive must exist (pip builds it on the student's machine), and
the rest of the requirements are then resolved with a stand-in for it, so an exception never
hides a second missing wheel. An exception that gets a wheel after all is reported too, so the
README's list does not go stale.

Why a script and not a test of the installed venv: the venv answers for one Python on one
platform; this answers for the twelve combinations the README promises, from any one machine.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("3.11", "3.12", "3.13", "3.14")

# pip does not widen a manylinux_2_28 tag to the older glibc tags it implies (it does for
# macOS), so the Linux entry lists them: a glibc 2.28+ distribution (Debian 10+, Ubuntu 20.04+,
# RHEL 8+) installs wheels tagged for any of these.
_LINUX = [f"manylinux_2_{minor}_x86_64" for minor in range(28, 4, -1)] + [
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64"]
PLATFORMS: dict[str, list[str]] = {
    "Linux x86_64": _LINUX,
    "macOS arm64": ["macosx_14_0_arm64"],  # pip adds every older macOS and universal2 tag
    "Windows amd64": ["win_amd64"],
}


@dataclass(frozen=True)
class KnownException:
  """A package that has no wheel for one platform and Python, and what a student does then."""

  package: str
  reason: str
  remedy: str


# (platform, python) -> the packages allowed to come from source there. Keep README's
# "Supported Pythons and platforms" table in step with this.
KNOWN_EXCEPTIONS: dict[tuple[str, str], tuple[KnownException, ...]] = {
    ("macOS arm64", "3.14"): (
        KnownException(
            "watchdog",
            "google-adk 2.13 requires watchdog>=6,<7, and watchdog 6 has no macOS wheel "
            "for Python 3.14 (only 7.x has)",
            "pip builds it from source: install Apple's command line tools first "
            "(xcode-select --install), or use Python 3.13"),
    ),
}

_MISSING = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+)(\S*)")


@dataclass
class Outcome:
  platform: str
  python: str
  packages: int = 0
  source_builds: list[str] = field(default_factory=list)
  problems: list[str] = field(default_factory=list)

  @property
  def ok(self) -> bool:
    return not self.problems


def pinned_requirements(path: Path) -> list[str]:
  """The requirement lines of ``requirements.txt``, without the editable course package
  (``-e .`` is pure Python and built from this checkout, not from the registry)."""
  lines = []
  for raw in path.read_text().splitlines():
    line = raw.split("#", 1)[0].strip()
    if line and not line.startswith("-e"):
      lines.append(line)
  return lines


def _pip_resolve(requirements: Path, python: str, tags: list[str],
                 find_links: Path | None = None) -> tuple[int, str, list[dict]]:
  """Run pip's resolver for one platform; (exit code, stderr, packages it would install)."""
  with tempfile.TemporaryDirectory(prefix="adkcourse-wheels-") as work:
    report = Path(work) / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
               "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
               "--python-version", python, "--implementation", "cp",
               "--target", str(Path(work) / "target"), "--report", str(report),
               "-r", str(requirements)]
    for tag in tags:
      command += ["--platform", tag]
    if find_links is not None:
      command += ["--find-links", str(find_links)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    installs = json.loads(report.read_text())["install"] if report.exists() else []
  errors = "\n".join(line for line in done.stderr.splitlines()
                     if not line.startswith("WARNING"))
  return done.returncode, errors, installs


def _source_archive(spec: str) -> str | None:
  """The file name of a source archive of ``spec`` on the registry, or None."""
  with tempfile.TemporaryDirectory(prefix="adkcourse-sdist-") as work:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary=:all:",
         "--quiet", "--disable-pip-version-check", "-d", work, spec],
        capture_output=True, text=True, timeout=600)
    archives = sorted(p.name for p in Path(work).iterdir()
                      if p.name.endswith((".tar.gz", ".zip")))
  return archives[0] if archives and done.returncode == 0 else None


def _stand_in_wheel(folder: Path, archive: str) -> str:
  """A metadata-only wheel for the package in source archive ``archive``: it lets pip resolve
  the rest of the requirements as if the source build had already happened."""
  name, version = re.match(r"(.+)-([^-]+)\.(?:tar\.gz|zip)$", archive).groups()
  dist = re.sub(r"[-.]+", "_", name).lower()
  wheel = folder / f"{dist}-{version}-py3-none-any.whl"
  info = f"{dist}-{version}.dist-info"
  with zipfile.ZipFile(wheel, "w") as package:
    package.writestr(f"{info}/METADATA",
                     f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    package.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: check_wheels\n"
                                      "Root-Is-Purelib: true\nTag: py3-none-any\n")
    package.writestr(f"{info}/RECORD", "")
  return f"{name}=={version}"


def _normal(name: str) -> str:
  return re.sub(r"[-_.]+", "-", name).lower()


def check_one(requirements: Path, platform: str, python: str) -> Outcome:
  """Resolve the requirements for one platform and Python; explain any package without a
  wheel, letting through only this combination's known exceptions (after checking them)."""
  outcome = Outcome(platform, python)
  allowed = {_normal(e.package): e for e in KNOWN_EXCEPTIONS.get((platform, python), ())}
  tags = PLATFORMS[platform]
  with tempfile.TemporaryDirectory(prefix="adkcourse-standins-") as stand_ins:
    stand_in_folder = Path(stand_ins)
    standing_in: set[str] = set()
    for _attempt in range(len(allowed) + 1):
      code, errors, installs = _pip_resolve(requirements, python, tags,
                                            stand_in_folder if standing_in else None)
      if code == 0:
        break
      missing = _MISSING.search(errors)
      if missing is None:
        outcome.problems.append(f"pip could not resolve: {errors.strip()[-400:]}")
        return outcome
      package, constraint = missing.group(1), missing.group(2)
      if _normal(package) not in allowed or _normal(package) in standing_in:
        outcome.problems.append(f"no wheel for {package}{constraint}: a compiler would be "
                                "needed (add a pin with wheels, or a known exception)")
        return outcome
      archive = _source_archive(f"{package}{constraint}")
      if archive is None:
        outcome.problems.append(f"{package}{constraint}: no wheel and no source archive")
        return outcome
      outcome.source_builds.append(_stand_in_wheel(stand_in_folder, archive))
      standing_in.add(_normal(package))
    else:
      outcome.problems.append("pip kept failing after every known exception was stood in")
      return outcome
  outcome.packages = len(installs)
  for package in sorted(set(allowed) - standing_in):
    outcome.problems.append(f"known exception {package} now has a wheel here: remove it from "
                            "KNOWN_EXCEPTIONS and the README")
  return outcome


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
  parser.add_argument("--python", action="append", choices=PYTHONS,
                      help="only this Python (repeatable; default: all)")
  parser.add_argument("--platform", action="append", choices=list(PLATFORMS),
                      help="only this platform (repeatable; default: all)")
  parser.add_argument("--jobs", type=int, default=4)
  args = parser.parse_args(argv)

  with tempfile.TemporaryDirectory(prefix="adkcourse-reqs-") as work:
    requirements = Path(work) / "requirements.txt"
    requirements.write_text("\n".join(pinned_requirements(args.requirements)) + "\n")
    combos = [(p, v) for p in (args.platform or list(PLATFORMS)) for v in (args.python or PYTHONS)]
    print(f"wheel check: resolving {len(combos)} combinations with pip (a few minutes; one "
          "line per combination as it finishes)", flush=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
      futures = {pool.submit(check_one, requirements, *combo): combo for combo in combos}
      for done, future in enumerate(as_completed(futures), 1):
        platform, python = futures[future]
        status = "ok" if future.result().ok else "FAIL"
        print(f"  [{done}/{len(combos)}] {platform}, Python {python}: {status}", flush=True)
      outcomes = [future.result() for future in futures]  # in the matrix's order

  print(f"{'platform':<15} {'python':<7} {'packages':>8}  result")
  for outcome in outcomes:
    if not outcome.ok:
      result = "FAIL: " + "; ".join(outcome.problems)
    elif outcome.source_builds:
      result = "ok, builds from source: " + ", ".join(outcome.source_builds)
    else:
      result = "ok, wheels only"
    print(f"{outcome.platform:<15} {outcome.python:<7} {outcome.packages:>8}  {result}")
  failed = [o for o in outcomes if not o.ok]
  print(f"wheel check: {len(outcomes) - len(failed)} of {len(outcomes)} combinations pass")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
