"""Run a command with the labs' agents on Gemini, sent to the course's local fake endpoint.

    python scripts/with_fake_gemini.py [--log FILE] [--min-calls N] -- CMD [ARGS...]

e.g. the test suite's second pass (the lessons under nbval, the labs' `adk run` tests):

    python scripts/with_fake_gemini.py --min-calls 1 -- \\
      .venv/bin/python -m pytest notebooks tests/test_cafe_concierge.py --nbval ...

Starts ``adkcourse.fake_gemini.FakeGemini`` on 127.0.0.1 (a free port) in this process, runs
CMD with

* ``GOOGLE_API_KEY=fake-key-for-tests`` (a real key in your environment is replaced, and
  ``GEMINI_API_KEY`` removed, so no real key is ever sent, not even to the fake endpoint);
  ``GOOGLE_GENAI_USE_VERTEXAI`` and ``GOOGLE_GENAI_USE_ENTERPRISE`` removed (Gemini API, not
  Vertex AI);
* ``GOOGLE_GEMINI_BASE_URL`` and ``ADKCOURSE_FAKE_GEMINI`` set to the endpoint's URL (the
  second one tells conftest.py not to force the offline model, and ``describe_model`` to say
  "via the course's local fake endpoint");
* ``ADKCOURSE_OFFLINE`` removed,

then stops the endpoint, prints to stderr how many generateContent calls it served, and exits
with CMD's status; or 1 if fewer than ``--min-calls`` calls arrived, or if any call was
answered with an error or by an agent without scripted rules (``--allow-unscripted`` allows
those), since either would mean the real Gemini path was not exercised as intended.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adkcourse.fake_gemini import (LOG_VARIABLE, VERTEX_VARIABLES, FakeGemini,  # noqa: E402
                                   read_log)

FAKE_KEY = "fake-key-for-tests"


def fake_environment(base: dict[str, str], server: FakeGemini, log: str) -> dict[str, str]:
  env = {k: v for k, v in base.items()
         if k not in {"ADKCOURSE_OFFLINE", "GEMINI_API_KEY", *VERTEX_VARIABLES}}
  env.update(server.environment(FAKE_KEY))
  env[LOG_VARIABLE] = log  # informative for CMD; the server writes the log itself
  return env


def summarize(calls: list[dict]) -> tuple[str, int, int]:
  """A one-paragraph summary, the number of failed calls and of unscripted ones."""
  by_method = Counter(call.get("method") for call in calls)
  by_agent = Counter(str(call.get("agent")) for call in calls)
  failed = [call for call in calls if call.get("status") != 200]
  unscripted = [call for call in calls if call.get("status") == 200 and not call.get("rules")]
  text = (f"fake Gemini endpoint: {len(calls)} calls "
          f"({by_method.get('generateContent', 0)} generateContent, "
          f"{by_method.get('streamGenerateContent', 0)} streamGenerateContent); "
          f"by agent: {dict(sorted(by_agent.items()))}; "
          f"errors: {len(failed)}; unscripted agents: {len(unscripted)}")
  for call in failed[:5]:
    text += f"\n  error {call.get('status')} ({call.get('agent')}): {call.get('error')}"
  for call in unscripted[:5]:
    text += f"\n  no rules for agent {call.get('agent')!r}"
  return text, len(failed), len(unscripted)


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--log", help="keep the JSON-lines request log here (default: temporary)")
  parser.add_argument("--min-calls", type=int, default=0,
                      help="fail unless at least this many generateContent calls arrived")
  parser.add_argument("--allow-unscripted", action="store_true",
                      help="do not fail on errors or on agents without scripted rules")
  parser.add_argument("command", nargs=argparse.REMAINDER)
  args = parser.parse_args(argv)
  command = args.command[1:] if args.command[:1] == ["--"] else args.command
  if not command:
    parser.error("give the command to run after --")
  with tempfile.TemporaryDirectory(prefix="adkcourse-fake-gemini-") as folder:
    log = args.log or str(Path(folder) / "requests.jsonl")
    Path(log).unlink(missing_ok=True)
    with FakeGemini(log_path=log) as server:
      env = fake_environment(dict(os.environ), server, log)
      print(f"fake Gemini endpoint at {server.url}; running: {' '.join(command)}",
            file=sys.stderr, flush=True)
      status = subprocess.call(command, env=env)
    calls = read_log(log)
  text, failed, unscripted = summarize(calls)
  print(text, file=sys.stderr)
  if status != 0:
    return status
  if len(calls) < args.min_calls:
    print(f"FAIL: expected at least {args.min_calls} calls to the fake Gemini endpoint",
          file=sys.stderr)
    return 1
  if (failed or unscripted) and not args.allow_unscripted:
    print("FAIL: the fake Gemini endpoint answered errors or unscripted agents (see above)",
          file=sys.stderr)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
