"""Checks of the lesson-6 exercise ``fit_the_budget`` (a window or compaction for a prompt budget).

Contract: ``def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer) ->
tuple[RunConfig, Optional[EventsCompactionConfig]]`` returns the ``RunConfig`` every turn of a
long chat runs with, and the compaction set-up of its ``App`` (None for none). Over the whole
conversation each model request must stay within ``budget_tokens`` (estimated: characters / 4),
the allergy the customer states in turn 1 must still reach the model in the last turn, the last
two user messages must reach it word for word, and summaries may cost at most one model call per
two turns. Compaction must use the summarizer it is given.

``act`` only calls the function and describes what it returned as JSON (the window's two numbers,
the compaction fields, whether the given summarizer is the one used). ``observe`` rebuilds those
configs itself, with its own summarizer (a scripted model that keeps the sentences about
allergies), and plays the conversation through a real ``Runner`` on a ``SqliteSessionService``
file: no student code runs while the prompts are measured.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ._base import Exercise, Resources, Trial, call_submission, check, untrusted_notes
from ._world import FIRST_NAMES, rng_for

BUDGET = 180
TURNS = 24
# Names of one length each: every seed's chat has the same size, so a set-up passes or fails the
# budget whatever the seed (only the words change).
ALLERGENS = ("almond", "sesame", "peanut", "walnut", "cashew", "celery")
DRINKS = ("latte", "mocha", "cocoa", "decaf")
COMPACTION_FIELDS = ("compaction_interval", "overlap_size", "token_threshold", "event_retention_size")


# --- prepare ---------------------------------------------------------------------------------------

async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  seed, rng = rng_for(resources.seed)
  allergen = rng.choice(ALLERGENS)
  tables = rng.sample(range(10, 100), TURNS)
  messages = [f"Please note: I'm allergic to {allergen}."] + [
      f"Turn {t}: a {rng.choice(DRINKS)} for table {tables[t - 1]}." for t in range(2, TURNS + 1)]
  return {"seed": seed, "budget": BUDGET, "allergen": allergen, "messages": messages,
          "user": rng.choice(FIRST_NAMES), "db_path": str(Path(workdir) / "budget.db")}


# --- act -------------------------------------------------------------------------------------------

def _describe(returned: Any, given: Any, notes: list[str]) -> Optional[dict[str, Any]]:
  """What the function returned, as plain JSON (None when it is not the contract's shape)."""
  from google.adk.agents.run_config import RunConfig
  from google.adk.apps.app import EventsCompactionConfig

  if not (isinstance(returned, tuple) and len(returned) == 2):
    notes.append(f"`fit_the_budget` returned {type(returned).__name__}: the contract is a tuple "
                 "(RunConfig, EventsCompactionConfig or None)")
    return None
  run_config, compaction = returned
  if type(run_config) is not RunConfig:
    notes.append(f"the first item is a {type(run_config).__name__}, not a RunConfig")
    return None
  if compaction is not None and type(compaction) is not EventsCompactionConfig:
    notes.append(f"the second item is a {type(compaction).__name__}, not an "
                 "EventsCompactionConfig or None")
    return None
  window = run_config.get_session_config
  described: dict[str, Any] = {
      "window": None if window is None else {
          "num_recent_events": _int_or_none(window.num_recent_events),
          "after_timestamp": None if window.after_timestamp is None else float(window.after_timestamp)},
      "compaction": None}
  if compaction is not None:
    described["compaction"] = {name: _int_or_none(getattr(compaction, name))
                               for name in COMPACTION_FIELDS}
    described["compaction"]["given_summarizer"] = compaction.summarizer is given
    described["compaction"]["no_summarizer"] = compaction.summarizer is None
  return described


def _int_or_none(value: Any) -> Optional[int]:
  return None if value is None else int(value)


async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  from google.adk.apps.llm_event_summarizer import LlmEventSummarizer

  from adkcourse.offline_model import OfflineModel, fallback

  trial = Trial()
  given = LlmEventSummarizer(llm=OfflineModel(rules=[fallback("(the grader's summarizer)")]))
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # EventsCompactionConfig is experimental in ADK 2.13
    returned = await call_submission(trial, fn, setup["budget"], given, is_async=False,
                                     time_limit=time_limit)
    described = _describe(returned, given, trial.notes) if returned is not None else None
  return {"notes": trial.notes, "returned": described}


# --- observe ---------------------------------------------------------------------------------------

@dataclass
class BudgetTrial(Trial):
  setup: dict[str, Any] = field(default_factory=dict)
  returned: Optional[dict[str, Any]] = None
  prompts: list[int] = field(default_factory=list)  # estimated tokens of each model request
  last_texts: list[str] = field(default_factory=list)  # texts of the last request's contents
  summaries: int = 0  # calls of the summarizer
  stored: int = 0  # events stored at the end


def _keep_allergies(turn) -> str:
  kept = [line.removeprefix("user: ") for line in turn.user_text.splitlines()
          if "allerg" in line.lower()]
  return "Summary: " + (" ".join(kept) or "the customer ordered drinks.")


def _valid(returned: Any) -> Optional[dict[str, Any]]:
  """``acted["returned"]`` checked field by field (it comes from the untrusted process)."""
  if not isinstance(returned, dict):
    return None
  window, compaction = returned.get("window"), returned.get("compaction")
  if window is not None:
    if not isinstance(window, dict):
      return None
    recent, after = window.get("num_recent_events"), window.get("after_timestamp")
    if not (recent is None or type(recent) is int) or not (after is None or type(after) in (int, float)):
      return None
  if compaction is not None:
    if not isinstance(compaction, dict):
      return None
    if any(not (compaction.get(k) is None or type(compaction.get(k)) is int) for k in COMPACTION_FIELDS):
      return None
    if type(compaction.get("given_summarizer")) is not bool or type(compaction.get("no_summarizer")) is not bool:
      return None
  return {"window": window, "compaction": compaction}


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> BudgetTrial:  # noqa: ARG001
  from google.adk.agents import Agent
  from google.adk.agents.run_config import RunConfig
  from google.adk.apps.app import App, EventsCompactionConfig
  from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
  from google.adk.runners import Runner
  from google.adk.sessions.base_session_service import GetSessionConfig
  from google.adk.sessions.sqlite_session_service import SqliteSessionService
  from google.genai import types

  from adkcourse.offline_model import OfflineModel, estimate_tokens, fallback

  trial = BudgetTrial(notes=untrusted_notes(acted), setup=setup)
  returned = _valid(acted.get("returned") if isinstance(acted, dict) else None)
  trial.returned = returned
  trial.acted = returned is not None
  if returned is None:
    return trial
  requests: list = []

  def record(callback_context, llm_request):  # noqa: ARG001
    requests.append(llm_request.model_copy(deep=True))

  agent = Agent(name="barista", instruction="You are a friendly barista. Keep answers short.",
                model=OfflineModel(rules=[fallback("Noted, coming right up.")]),
                before_model_callback=record)
  summarizer_model = OfflineModel(rules=[fallback(_keep_allergies)])
  window = returned["window"]
  run_config = RunConfig(get_session_config=GetSessionConfig(**window) if window else None)
  compaction = None
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if returned["compaction"] is not None:
      fields = {k: returned["compaction"][k] for k in COMPACTION_FIELDS}
      summarizer = None if returned["compaction"]["no_summarizer"] else LlmEventSummarizer(llm=summarizer_model)
      if not returned["compaction"]["given_summarizer"] and summarizer is not None:
        trial.notes.append("compaction uses a summarizer other than the one given: graded with the given one")
      try:
        compaction = EventsCompactionConfig(summarizer=summarizer, **fields)
      except ValueError as error:
        trial.notes.append(f"the compaction set-up is not valid: {error}")
        trial.acted = False
        return trial
    # The replay runs on a file the judge creates itself, never on one found in the work folder:
    # the submission's process could have left a database there with triggers that rewrite
    # the conversation as it is stored.
    replay_dir = Path(tempfile.mkdtemp(prefix="fit_the_budget-replay-"))
    service = SqliteSessionService(str(replay_dir / "budget.db"))
    app = App(name="budget", root_agent=agent, events_compaction_config=compaction)
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name="budget", user_id=setup["user"])
    adk_logger = logging.getLogger("google_adk")
    level = adk_logger.level
    adk_logger.setLevel(logging.CRITICAL)
    try:
      for text in setup["messages"]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _event in runner.run_async(user_id=setup["user"], session_id=session.id,
                                             new_message=message, run_config=run_config):
          pass
    except Exception as error:  # noqa: BLE001 - a set-up ADK refuses is the submission's fault
      trial.notes.append(f"the conversation failed: {type(error).__name__}: {error}")
    finally:
      adk_logger.setLevel(level)
    stored = await service.get_session(app_name="budget", user_id=setup["user"], session_id=session.id)
    shutil.rmtree(replay_dir, ignore_errors=True)
  trial.prompts = [estimate_tokens(r) for r in requests]
  if requests:
    trial.last_texts = [p.text for c in requests[-1].contents for p in c.parts or [] if p.text]
  trial.summaries = len(summarizer_model.requests)
  trial.stored = len(stored.events) if stored else 0
  return trial


# --- checks ----------------------------------------------------------------------------------------

def _ran(trial: BudgetTrial) -> bool:
  return len(trial.prompts) >= len(trial.setup["messages"])


@check(1)
def returns_a_set_up(trial: BudgetTrial):
  """Return `(RunConfig, EventsCompactionConfig or None)`; compaction uses the summarizer given."""
  if trial.returned is None:
    return False, "the function did not return (RunConfig, EventsCompactionConfig or None)"
  compaction = trial.returned["compaction"]
  if compaction is not None and not compaction["given_summarizer"]:
    return False, "compaction must use the `summarizer` argument (without one, ADK summarises with the agent's own model)"
  return True, "a RunConfig and a compaction set-up (or None)"


@check(2)
def every_prompt_within_budget(trial: BudgetTrial):
  """Every model request of the 24-turn chat stays within `budget_tokens` (estimated)."""
  if not _ran(trial):
    return False, "the conversation did not run to its end"
  budget, worst = trial.setup["budget"], max(trial.prompts)
  if worst <= budget:
    return True, f"largest request: {worst} estimated tokens (budget {budget})"
  turn = trial.prompts.index(worst) + 1
  return False, (f"a request reached {worst} estimated tokens (budget {budget}), around model "
                 f"call {turn}: something keeps growing")


@check(2)
def allergy_still_reaches_the_model(trial: BudgetTrial):
  """The allergy stated in turn 1 is still in what the model receives in the last turn."""
  if not _ran(trial):
    return False, "the conversation did not run to its end"
  if any(trial.setup["allergen"] in text for text in trial.last_texts):
    return True, "the last request still mentions the allergy"
  return False, ("the last request no longer mentions the allergy from turn 1: a window alone drops "
                 "it, and a summary only helps while it is loaded")


@check(1)
def recent_turns_word_for_word(trial: BudgetTrial):
  """The last two user messages reach the model word for word in the last turn."""
  if not _ran(trial):
    return False, "the conversation did not run to its end"
  wanted = trial.setup["messages"][-2:]
  missing = [m for m in wanted if m not in trial.last_texts]
  if not missing:
    return True, "the previous and the new message are both in the last request"
  return False, f"missing from the last request, word for word: {missing[0]!r}"


@check(1, needs_action=True)
def summaries_are_affordable(trial: BudgetTrial):
  """At most one summary (one model call) per two turns."""
  if not _ran(trial):
    return False, "the conversation did not run to its end"
  limit = len(trial.setup["messages"]) // 2
  if trial.summaries <= limit:
    return True, f"{trial.summaries} summaries in {len(trial.setup['messages'])} turns"
  return False, f"{trial.summaries} summaries in {len(trial.setup['messages'])} turns (at most {limit}): each is a model call"


EXERCISE = Exercise(
    name="fit_the_budget",
    lesson="06_long_conversations",
    signature=("def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer) "
               "-> tuple[RunConfig, Optional[EventsCompactionConfig]]"),
    is_async=False,
    checks=(returns_a_set_up, every_prompt_within_budget, allergy_still_reaches_the_model,
            recent_turns_word_for_word, summaries_are_affordable),
    prepare=prepare,
    act=act,
    observe=observe,
)
