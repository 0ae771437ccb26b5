"""The cafe concierge lab: its tools, its offline rules, and the agent on a real Runner."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adkcourse.offline_model import OFFLINE_TAG
from lab_cli import adk_run_replay
from labs.cafe_concierge.agent import APP_NAME, root_agent
from labs.cafe_concierge.tools import place_order, set_dietary_preference


def fake_context(state=None):
  return SimpleNamespace(state=dict(state or {}))


def test_place_order_totals_valid_items_and_warns_about_the_rest():
  ctx = fake_context()
  result = place_order(ctx, ["Latte", "croissant", "unicorn frappe"])
  assert result["order"] == {"items": ["latte", "croissant"], "total": 7.25}
  assert "unicorn frappe" in result["warning"]
  assert ctx.state["current_order"] == result["order"]


def test_place_order_with_nothing_on_the_menu_is_an_error_and_stores_nothing():
  ctx = fake_context()
  result = place_order(ctx, ["pizza"])
  assert result == {"error": "None of these items are on our menu: ['pizza']"}
  assert "current_order" not in ctx.state


def test_dietary_preferences_have_no_duplicates():
  ctx = fake_context({"user:dietary_preferences": ["vegan"]})
  set_dietary_preference(ctx, " Vegan ")
  result = set_dietary_preference(ctx, "nut allergy")
  assert ctx.state["user:dietary_preferences"] == ["vegan", "nut allergy"]
  assert result == {"saved": "nut allergy", "all_preferences": ["vegan", "nut allergy"]}


def test_a_corrupt_stored_value_is_replaced_by_a_list():
  ctx = fake_context({"user:dietary_preferences": "vegan"})
  set_dietary_preference(ctx, "vegan")
  assert ctx.state["user:dietary_preferences"] == ["vegan"]


async def converse(messages: list[str]) -> tuple[list[str], dict]:
  service = InMemorySessionService()
  runner = Runner(agent=root_agent, app_name=APP_NAME, session_service=service)
  session = await service.create_session(app_name=APP_NAME, user_id="ana")
  replies = []
  for text in messages:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id="ana", session_id=session.id,
                                        new_message=message):
      if event.is_final_response():
        replies.append(event.content.parts[0].text)
  stored = await service.get_session(app_name=APP_NAME, user_id="ana", session_id=session.id)
  return replies, dict(stored.state)


async def test_offline_rules_cover_preferences_orders_and_recall():
  replies, state = await converse([
      "Hello", "I'm lactose intolerant", "I have a nut allergy",
      "I'd like an oat milk latte and a unicorn frappe, please", "order a pizza",
      "What do you remember about me?"])
  assert all(r.startswith(OFFLINE_TAG) for r in replies)
  assert "What can I get you" in replies[0]
  assert replies[1].endswith("I'll remember: lactose intolerant.")
  assert replies[2].endswith("lactose intolerant, nut allergy.")
  assert "oat milk latte, total $4.50" in replies[3] and "unicorn frappe" in replies[3]
  assert "None of these items are on our menu: ['pizza']" in replies[4]
  assert "['lactose intolerant', 'nut allergy']" in replies[5]
  assert "'oat milk latte'" in replies[5]
  assert state["user:dietary_preferences"] == ["lactose intolerant", "nut allergy"]
  assert state["current_order"] == {"items": ["oat milk latte"], "total": 4.5}


def test_adk_run_works_offline(tmp_path):
  """`adk run labs/cafe_concierge` with the offline model, messages from a replay file."""
  out = adk_run_replay("cafe_concierge", ["I am vegan", "What do you remember?"], tmp_path)
  assert f"{OFFLINE_TAG} Noted! I'll remember: vegan." in out
  assert "dietary preferences are ['vegan']" in out

LAB = Path(__file__).resolve().parent.parent / "labs" / "cafe_concierge"


def test_requirements_add_what_the_deployed_image_lacks():
  """`adk deploy cloud_run` installs google-adk[a2a] only, then this file (lesson 4)."""
  lines = [line.strip() for line in (LAB / "requirements.txt").read_text().splitlines()
           if line.strip() and not line.startswith("#")]
  assert lines == ["google-adk[db]==2.13.0", "asyncpg==0.32.0"]


def test_services_module_registers_a_pooled_postgres_factory():
  """services.py, as `adk api_server` loads it, builds DatabaseSessionService with a small pool."""
  from google.adk.cli.service_registry import get_service_registry
  from google.adk.sessions import DatabaseSessionService

  from labs.cafe_concierge import services

  built = get_service_registry().create_session_service(
      "postgresql+asyncpg://cafe_app@/cafe?host=/nowhere", agents_dir=str(LAB))
  try:
    assert isinstance(built, DatabaseSessionService)
    assert (built.db_engine.pool.size(), built.db_engine.pool._max_overflow) == (
        services.POOL_SIZE, services.MAX_OVERFLOW) == (2, 3)
  finally:
    asyncio.run(built.close())
