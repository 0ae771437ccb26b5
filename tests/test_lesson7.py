"""Lesson 7's own checks, the ones its cells cannot make about themselves."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import google.adk
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "07_agents_and_artifacts.ipynb"
ADK = Path(google.adk.__file__).parent
CELLS = nbformat.read(LESSON, as_version=4).cells
BY_ID = {cell.get("id"): cell for cell in CELLS}
MARKDOWN = "\n".join(c.source for c in CELLS if c.cell_type == "markdown")


def _describe(agent) -> dict:
  tools = sorted(getattr(t, "name", None) or t.__name__ for t in agent.tools)
  return {"name": agent.name, "description": agent.description, "instruction": agent.instruction,
          "tools": tools, "sub_agents": [a.name for a in agent.sub_agents]}


def test_the_lesson_builds_the_labs_team():
  """The lesson builds its agents in cells (the reader sees the ADK calls); they must stay the
  lab's agents, or the lesson would teach a team that `adk web labs` does not run."""
  from labs.cafe_team import agent as lab

  namespace: dict = {}
  for cell_id in ("l7-imports", "l7-services", "l7-team"):
    exec(compile(BY_ID[cell_id].source, cell_id, "exec"), namespace)  # noqa: S102
  for name, lab_agent in [("pastry_chef", lab.pastry_chef), ("barista", lab.barista),
                          ("host", lab.root_agent)]:
    assert _describe(namespace[name]) == _describe(lab_agent), name
  assert namespace["app"].name == lab.app.name


@pytest.mark.parametrize("source", sorted(set(re.findall(
    r"`((?:agents|tools|artifacts|cli|plugins|sessions)/[\w/]*\.py|runners\.py)`", MARKDOWN))))
def test_every_adk_file_the_lesson_cites_exists_in_the_pinned_adk(source):
  assert (ADK / source).is_file(), f"the lesson cites google/adk/{source}, which ADK does not have"


@pytest.mark.parametrize("source,name", [
    ("agents/_agent_router.py", "def find_agent_to_run"),
    ("tools/agent_tool.py", "session_service=InMemorySessionService()"),
    ("agents/_agent_router.py", "def is_transferable_across_agent_tree"),
    ("agents/context.py", "raise ValueError('Artifact service is not initialized.')"),
    ("cli/cli_deploy.py", "artifact_service_uri = artifact_service_uri or 'memory://'"),
    ("sessions/_rewind_utils.py", "def compute_artifact_delta_for_rewind"),
    ("cli/cli.py", "artifact_service_uri = 'memory://'"),
    ("cli/utils/service_factory.py", "_is_cloud_run()"),
    ("agents/parallel_agent.py", "ParallelAgent is deprecated in favor of Workflow"),
    ("agents/parallel_agent.py", "Workflow cannot yet be used as an LlmAgent sub-agent."),
    ("tools/agent_tool.py", "artifact_service=ForwardingArtifactService(tool_context)"),
    ("tools/agent_tool.py", "prefer\n    setting ``mode='single_turn'`` on the sub-agent"),
    ("sessions/_rewind_utils.py", "artifact = artifact_util._new_rewind_tombstone()"),
    ("cli/utils/service_factory.py", '_KUBERNETES_HOST_ENV = "KUBERNETES_SERVICE_HOST"'),
    ("cli/utils/service_factory.py", '_FORCE_LOCAL_STORAGE_ENV = "ADK_FORCE_LOCAL_STORAGE"'),
    ("cli/cli_deploy.py", "if parse(adk_version) >= parse('1.3.0') and not use_local_storage:"),
])
def test_the_code_the_lesson_points_to_is_where_it_says(source, name):
  assert name in (ADK / source).read_text()


def test_the_exercise_cell_points_to_an_exercise_that_exists_and_comes_before_its_solution():
  cell = BY_ID["l7-exercise"]
  assert "labs/exercises/erase_user_artifacts.ipynb" in cell.source
  assert (ROOT / "labs" / "exercises" / "erase_user_artifacts.ipynb").is_file()
  assert "async def erase_user_artifacts(" in (ROOT / "exercises" / "erase_user_artifacts.py").read_text()
  ids = [c.get("id") for c in CELLS]
  solution = [i for i, c in enumerate(CELLS) if "solutions/erase_user_artifacts.py" in c.source]
  assert solution and min(solution) >= ids.index("l7-exercise")
  # the only definition is the student's stub (the attempt cell), never a working one
  assert all("raise NotImplementedError" in c.source for c in CELLS
             if c.cell_type == "code" and "def erase_user_artifacts" in c.source)


def test_the_gcs_emulator_and_its_client_are_pinned_at_the_installed_versions():
  pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#"))
  for package in ("gcp-storage-emulator", "google-cloud-storage"):
    assert pins.get(package) == metadata.version(package), package


def test_going_further_asserts_what_it_says():
  """Each Going further part keeps at least one assert (they run in CI too)."""
  start = next(i for i, c in enumerate(CELLS) if c.get("id") == "l7-further")
  code = [c for c in CELLS[start:] if c.cell_type == "code" and c.get("id") != "l7-live"]
  assert code and all("assert " in c.source for c in code
                      if c.get("id") not in {"l7-gcs"}), [c.get("id") for c in code]
