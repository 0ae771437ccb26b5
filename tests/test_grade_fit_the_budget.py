"""The worlds of ``fit_the_budget``'s judge hold what tells a wrong set-up from a right one, by
construction and in every run (not by chance in some): an aligned chat reaches exactly
``budget - 29`` tokens before anything needs summarising and then adds a full turn (so any
trigger above ``budget - 29`` overflows), every run has such chats across the whole budget
range, the tiny chat (the shortest turns at budget 600) holds as many events and turns before
the largest threshold that fits as any chat can (so a window or a sliding-window backup that
is ever too short shows), and every chat is played at times long before its set-up was made
(so a time window shows)."""

from __future__ import annotations

import asyncio
import logging
import random
import warnings

import pytest

from adkcourse.grade.checks import fit_the_budget as ftb
from adkcourse.grade.checks._channel import LocalChannel
from adkcourse.grade.checks._fit_the_budget_support import MAX_SUMMARY, MIN_SUMMARY, ChannelModel


def test_every_world_is_within_the_contract():
  # 2,000 worlds: one in about 400 once had a 25-character order no template could write, and
  # the grader failed to prepare the submission (CI, 2 December).
  for seed in range(2000):
    spec = ftb.generate(random.Random(seed), seed % 4)
    for chat in spec["chats"]:
      assert 130 <= chat["budget"] <= 600 and 3 <= len(chat["messages"]) <= ftb.TINY_TURNS
      assert all(ftb.MIN_MESSAGE <= len(m) <= ftb.MAX_MESSAGE for m in chat["messages"])
      assert all(ftb.MIN_REPLY <= len(r) <= ftb.MAX_REPLY for r in chat["replies"])
      assert MIN_SUMMARY <= chat["summary"] <= MAX_SUMMARY
      assert len(chat["offsets"]) == len(chat["messages"]) and chat["ago"] > chat["offsets"][-1]
      assert chat["allergen"] in chat["messages"][0]


def test_every_run_has_aligned_chats_across_the_range():
  for first in (0, 4, 8):
    budgets = sorted(c["budget"] for seed in range(first, first + 4)
                     for c in ftb.generate(random.Random(seed), seed % 4)["chats"]
                     if c["kind"] == "aligned")
    for low, high in ((130, 130), (131, 155), (156, 190), (191, 300), (301, 400), (401, 500),
                      (501, 599), (600, 600)):
      assert any(low <= b <= high for b in budgets), (first, low, high, budgets)


def test_every_run_has_the_tiny_chat_and_set_ups_largest_budget_first():
  for seed in range(40):
    chats = ftb.generate(random.Random(seed), seed % 4)["chats"]
    budgets = [c["budget"] for c in chats]
    assert budgets == sorted(budgets, reverse=True)
    if seed % 4 == 2:
      tiny = [c for c in chats if c["kind"] == "tiny"]
      assert len(tiny) == 1 and tiny[0]["budget"] == 600
      assert [len(m) for m in tiny[0]["messages"]] == [ftb.MIN_MESSAGE] * ftb.TINY_TURNS
      assert [len(r) for r in tiny[0]["replies"]] == [ftb.MIN_REPLY] * ftb.TINY_TURNS
      assert tiny[0]["ago"] - tiny[0]["offsets"][-1] == 12 * ftb.YEAR


def played(chat: dict, run_config=None) -> list[dict]:
  """The barista's records of a chat played with no compaction at all (and ``run_config``), at
  the chat's times."""
  from google.adk.agents.run_config import RunConfig

  server = ftb.chat_servers(chat, 0)["barista-0"]
  barista = ChannelModel(LocalChannel(server), model="judge-barista")
  logging.getLogger("google_adk").setLevel(logging.CRITICAL)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    asyncio.run(ftb.play((run_config or RunConfig(), None), chat["messages"], barista,
                         chat["ago"], chat["offsets"]))
  return server.records


def requests_without_compaction(chat: dict) -> list[int]:
  """The barista's request sizes of a chat played with no compaction at all."""
  return [r["tokens"] for r in played(chat)]


@pytest.mark.parametrize("seed", range(4))
def test_aligned_chats_cross_at_exactly_the_awkward_size(seed):
  for chat in ftb.generate(random.Random(seed), seed % 4)["chats"]:
    tokens = requests_without_compaction(chat)
    budget = chat["budget"]
    if chat["kind"] == "aligned":
      assert (budget - 29, budget + 1) in set(zip(tokens, tokens[1:])), (budget, tokens)
    if chat["kind"] == "tiny":  # 571 (budget - 29, the largest threshold that fits) first in
      # turn 74 (budget - 30 in turn 73): before it, turns 1-73 are 146 events raw
      assert len(tokens) == ftb.TINY_TURNS and tokens[72] == 570 < 571 <= tokens[73], tokens


def test_the_chat_is_older_than_its_set_up():
  """Events carry the chat's own times, all long before now: a time window made at set-up
  drops every earlier turn."""
  import time

  from google.adk.agents.run_config import RunConfig
  from google.adk.sessions.base_session_service import GetSessionConfig

  chat = ftb.generate(random.Random(1), 0)["chats"][0]
  window = GetSessionConfig(after_timestamp=time.time() - ftb.DAY)
  records = played(chat, RunConfig(get_session_config=window))
  assert [len(r["texts"]) for r in records[:3]] == [1, 1, 1]
  assert len(played(chat)[2]["texts"]) == 5  # the whole chat without the window
