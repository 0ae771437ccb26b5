"""The cafe concierge agent. Nothing in here knows where sessions are stored: the same
``root_agent`` runs on memory, a SQLite file or PostgreSQL."""

from __future__ import annotations

from google.adk.agents import Agent

from adkcourse.model_choice import pick_model

from .rules import OFFLINE_RULES
from .tools import CAFE_MENU, place_order, set_dietary_preference

APP_NAME = "cafe_concierge"

_MENU_TEXT = "\n".join(f"- {name}: ${info['price']:.2f}" for name, info in CAFE_MENU.items())

INSTRUCTION = f"""You are the cafe concierge, a friendly barista.
Take orders with the place_order tool, using items from the menu only.
When the customer mentions a dietary restriction or preference, save it with
set_dietary_preference, and suggest items that suit their preferences.

Menu:
{_MENU_TEXT}

Customer's dietary preferences: {{user:dietary_preferences?}}
Current order: {{current_order?}}
"""

root_agent = Agent(
    name="cafe_concierge",
    model=pick_model(OFFLINE_RULES),
    description="A barista that takes orders and remembers dietary preferences.",
    instruction=INSTRUCTION,
    tools=[place_order, set_dietary_preference],
)
