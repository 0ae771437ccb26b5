"""The worlds of ``fit_the_budget``'s judge hold what tells a wrong set-up from a right one, by
construction and in every run (not by chance in some): an aligned chat reaches exactly
``budget - 29`` tokens before anything needs summarising and then adds a full turn (so any
trigger above ``budget - 29`` overflows), every run has such chats across the whole budget
range, and the 60-turn chat never nears its budget (so a sliding-window backup shows)."""

from __future__ import annotations

import asyncio
import logging
import random
import warnings

import pytest

from adkcourse.grade.checks import fit_the_budget as ftb
from adkcourse.grade.checks._channel import LocalChannel
from adkcourse.grade.checks._fit_the_budget_support import MAX_SUMMARY, ChannelModel


def test_every_world_is_within_the_contract():
  for seed in range(300):
    spec = ftb.generate(random.Random(seed), seed % 4)
    for chat in spec["chats"]:
      assert 130 <= chat["budget"] <= 600 and 3 <= len(chat["messages"]) <= 60
      assert all(len(m) <= ftb.MAX_MESSAGE for m in chat["messages"])
      assert all(len(r) <= ftb.MAX_REPLY for r in chat["replies"])
      assert chat["summary"] <= MAX_SUMMARY
      assert chat["allergen"] in chat["messages"][0]


def test_every_run_has_aligned_chats_across_the_range():
  for first in (0, 4, 8):
    budgets = sorted(c["budget"] for seed in range(first, first + 4)
                     for c in ftb.generate(random.Random(seed), seed % 4)["chats"]
                     if c["kind"] == "aligned")
    for low, high in ((130, 130), (131, 155), (156, 190), (191, 300), (301, 400), (401, 500),
                      (501, 599), (600, 600)):
      assert any(low <= b <= high for b in budgets), (first, low, high, budgets)


def requests_without_compaction(chat: dict) -> list[int]:
  """The barista's request sizes of a chat played with no compaction at all."""
  from google.adk.agents.run_config import RunConfig

  server = ftb.chat_servers(chat, 0)["barista-0"]
  barista = ChannelModel(LocalChannel(server), model="judge-barista")
  logging.getLogger("google_adk").setLevel(logging.CRITICAL)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    asyncio.run(ftb.play((RunConfig(), None), chat["messages"], barista))
  return [r["tokens"] for r in server.records]


@pytest.mark.parametrize("seed", range(4))
def test_aligned_chats_cross_at_exactly_the_awkward_size(seed):
  for chat in ftb.generate(random.Random(seed), seed % 4)["chats"]:
    tokens = requests_without_compaction(chat)
    budget = chat["budget"]
    if chat["kind"] == "aligned":
      assert (budget - 29, budget + 1) in set(zip(tokens, tokens[1:])), (budget, tokens)
    if chat["kind"] == "long":
      assert len(tokens) == 60 and max(tokens) < budget - 30, (budget, tokens)
