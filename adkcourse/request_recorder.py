"""See what a model is told, with ADK's own hooks: a ``before_model_callback`` (or a plugin).

ADK builds one ``LlmRequest`` per model call: the system instruction (with ``{key}`` templates
already filled in from state), the declared tools and the contents (the history plus the new
message). Just before it calls the model, it runs the ``before_model_callback``s, plugins' first.
A callback that keeps a copy of the request therefore sees exactly what any model receives:
the course's offline scripted model and Gemini alike, since it never asks the model anything.

    recorder = RequestRecorder()
    agent = Agent(..., before_model_callback=recorder)      # this agent's calls, or
    app = App(name=..., root_agent=agent, plugins=[recorder.plugin])   # every agent's calls
    runner = Runner(app=app, session_service=...)
    ...
    system_instruction(recorder.last), tool_names(recorder.last), contents_count(recorder.last)

The callback returns ``None``, so ADK goes on to call the model; returning an ``LlmResponse``
instead would skip the model (that is how a cache or a guardrail is built).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Optional

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from .offline_model import declared_tools


def system_instruction(request: Optional[LlmRequest]) -> str:
  """The system instruction as sent: ADK's identity line, the agent's instruction with state
  filled in, and whatever else ADK added. Empty when there is none."""
  config = request.config if request is not None else None
  value: Any = config.system_instruction if config else None
  if value is None:
    return ""
  if isinstance(value, str):
    return value
  if isinstance(value, types.Content):
    return "\n".join(part.text or "" for part in value.parts or [])
  if isinstance(value, types.Part):
    return value.text or ""
  if isinstance(value, list):
    return "\n".join(item if isinstance(item, str) else getattr(item, "text", "") or ""
                     for item in value)
  return str(value)


def tool_names(request: Optional[LlmRequest]) -> list[str]:
  """The names of the tools declared to the model in this request, sorted."""
  return declared_tools(request) if request is not None else []


def contents_count(request: Optional[LlmRequest]) -> int:
  """How many contents (messages, function calls, function results) the request carries:
  the whole history the model is sent on every call, not just the new message."""
  return len(request.contents) if request is not None else 0


def snapshot(request: LlmRequest) -> LlmRequest:
  """A copy that later changes cannot reach: a model may edit the request it is given (Gemini
  appends a user turn when the history ends with the model's, and sets HTTP headers), and ADK
  reuses the contents list; the recorder must show what the model was given, as given."""
  config = request.config.model_copy() if request.config is not None else None
  if config is not None and config.tools:
    config.tools = [tool.model_copy(deep=True) if hasattr(tool, "model_copy") else tool
                    for tool in config.tools]
  return request.model_copy(update={
      "contents": [content.model_copy(deep=True) for content in request.contents],
      "config": config,
      "tools_dict": dict(request.tools_dict)})


@dataclass(frozen=True)
class Recorded:
  """One model call: which agent made it, and a snapshot of the request."""

  agent: str
  request: LlmRequest


class RequestRecorder:
  """Keeps the latest ``max_kept`` requests that models received (a long ``adk web`` session
  must not grow memory for ever). Use it as an agent's ``before_model_callback``, or add
  ``recorder.plugin`` to an App's plugins to record every agent of that app."""

  def __init__(self, max_kept: int = 200, name: str = "request_recorder") -> None:
    if max_kept < 1:
      raise ValueError("max_kept must be at least 1")
    self.max_kept = max_kept
    self.name = name
    self.count = 0
    """How many requests were recorded in all, dropped ones included: a mark for ``since``."""
    self._recorded: list[Recorded] = []
    self._lock = threading.Lock()  # adk web and api_server may run several invocations at once
    self._plugin: Optional[RecorderPlugin] = None

  def __call__(self, callback_context: CallbackContext,
               llm_request: LlmRequest) -> None:
    """The ``before_model_callback``: keep a copy of the request, let the model run."""
    self.record(callback_context.agent_name, llm_request)
    return None

  def record(self, agent: str, llm_request: LlmRequest) -> None:
    with self._lock:
      self._recorded.append(Recorded(agent=agent, request=snapshot(llm_request)))
      del self._recorded[: -self.max_kept]
      self.count += 1

  @property
  def plugin(self) -> "RecorderPlugin":
    """The same recorder as a plugin: ``App(..., plugins=[recorder.plugin])``."""
    if self._plugin is None:
      self._plugin = RecorderPlugin(self)
    return self._plugin

  @property
  def requests(self) -> list[LlmRequest]:
    """The requests kept, oldest first."""
    with self._lock:
      return [item.request for item in self._recorded]

  @property
  def last(self) -> Optional[LlmRequest]:
    """The latest request, or None before the first model call."""
    with self._lock:
      return self._recorded[-1].request if self._recorded else None

  @property
  def recorded(self) -> list[Recorded]:
    """The requests kept, with the name of the agent that sent each one."""
    with self._lock:
      return list(self._recorded)

  def since(self, mark: int) -> list[LlmRequest]:
    """The requests recorded after ``mark`` (a value of ``count`` read earlier):
    ``mark = recorder.count; ...run a turn...; recorder.since(mark)``."""
    with self._lock:
      new = self.count - mark
      if new <= 0:
        return []
      return [item.request for item in self._recorded[-new:]]

  def for_agent(self, agent: str) -> list[LlmRequest]:
    """The requests one agent sent (a plugin records every agent of the runner)."""
    with self._lock:
      return [item.request for item in self._recorded if item.agent == agent]

  def clear(self) -> None:
    with self._lock:
      self._recorded.clear()

  def __len__(self) -> int:
    with self._lock:
      return len(self._recorded)

  def __repr__(self) -> str:
    return f"RequestRecorder({len(self)} requests kept of {self.count} recorded)"


class RecorderPlugin(BasePlugin):
  """A plugin's ``before_model_callback`` runs for every agent of the Runner, before the
  agents' own callbacks; this one hands each request to its recorder and changes nothing."""

  def __init__(self, recorder: RequestRecorder) -> None:
    super().__init__(name=recorder.name)
    self.recorder = recorder

  async def before_model_callback(self, *, callback_context: CallbackContext,
                                  llm_request: LlmRequest) -> None:
    self.recorder.record(callback_context.agent_name, llm_request)
    return None
