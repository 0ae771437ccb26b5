"""The cafe team: ``cafe_host`` (root) seats the customer and transfers to ``barista``, who
takes the order, asks ``pastry_chef`` through ``AgentTool`` and prints receipts as artifacts.

``app`` adds ``SaveFilesAsArtifactsPlugin``: a file uploaded in ``adk web`` becomes an artifact
of the session. Nothing here says where sessions or artifacts are stored: pass
``--session_service_uri`` and ``--artifact_service_uri`` (e.g. ``file:///tmp/cafe-files``).
Lesson 7 builds the same three agents from the instructions, tools and rules below.
"""

from __future__ import annotations

from google.adk.agents import Agent
from google.adk.apps import App
from google.adk.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin
from google.adk.tools import load_artifacts
from google.adk.tools.agent_tool import AgentTool

from adkcourse.model_choice import pick_model

from .rules import BARISTA_RULES, HOST_RULES, PASTRY_CHEF_RULES
from .tools import note_pastry, place_order, save_receipt, seat_customer

APP_NAME = "cafe_team"

CHEF_INSTRUCTION = """You are the pastry chef. Suggest one pastry (croissant or banana bread)
for the order you are given, and note it with note_pastry."""

BARISTA_INSTRUCTION = """You are the barista. Take orders with place_order, ask pastry_chef
for a pastry when asked, print receipts with save_receipt, read saved files with
load_artifacts. Transfer back to cafe_host when the customer is done.
Table: {table?}
Seated by: {temp:seated_by?}
Current order: {current_order?}"""

HOST_INSTRUCTION = """You are the cafe's host. Seat customers with seat_customer, then transfer
them to the barista for anything about drinks, food or receipts.
Current order: {current_order?}"""

pastry_chef = Agent(name="pastry_chef", model=pick_model(PASTRY_CHEF_RULES),
                    description="Suggests one pastry from the menu to go with an order.",
                    instruction=CHEF_INSTRUCTION, tools=[note_pastry])

barista = Agent(name="barista", model=pick_model(BARISTA_RULES),
                description="Takes drink orders, suggests pastries and prints receipts.",
                instruction=BARISTA_INSTRUCTION,
                tools=[place_order, save_receipt, load_artifacts, AgentTool(pastry_chef)])

root_agent = Agent(name="cafe_host", model=pick_model(HOST_RULES),
                   description="Greets customers, seats them, and hands them to the barista.",
                   instruction=HOST_INSTRUCTION, tools=[seat_customer], sub_agents=[barista])

app = App(name=APP_NAME, root_agent=root_agent, plugins=[SaveFilesAsArtifactsPlugin()])
