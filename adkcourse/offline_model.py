"""An offline, scripted stand-in for Gemini.

The course runs with no network and no API key, yet every lesson must drive the *real*
ADK ``Runner``: real function calls, real tools, real session services. ``OfflineModel`` is a
``BaseLlm`` that answers from a small list of per-agent rules instead of a neural network:

* ``on_user(pattern, call=...)``: when the latest user text matches, ask ADK to call a tool
  with arguments taken from the text (``calls=...``: several tools in one response, as a
  model asking for parallel tool calls does);
* ``on_tool(name, reply=...)``: when the latest content is a function response, reply with
  text built from it;
* ``fallback(reply=...)``: otherwise, a plain reply.

Every request the Runner sends is kept (``model.requests``). Lessons now see requests through
``adkcourse.request_recorder`` instead (an ADK callback, so it works on Gemini too); the
attributes stay for code written against them. Every text it produces starts with
``OFFLINE_TAG`` so nobody mistakes it for a real model. ``adkcourse.fake_gemini`` serves the
same rules over the Gemini REST API (``respond`` is the shared rule engine).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Callable, Optional

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import ConfigDict, Field, PrivateAttr

OFFLINE_TAG = "[offline model]"

ArgsBuilder = Callable[[re.Match[str], "Turn"], dict[str, Any]]
ReplyBuilder = Callable[["Turn"], str]
CallsBuilder = Callable[[re.Match[str], "Turn"], list[tuple[str, dict[str, Any]]]]


@dataclass
class Turn:
  """What a rule gets to look at: the request and the parts of it rules usually need."""

  request: LlmRequest
  user_text: str
  function_response: Optional[types.FunctionResponse] = None

  @property
  def instruction(self) -> str:
    """The system instruction exactly as ADK sent it (state templates already filled in)."""
    si = self.request.config.system_instruction if self.request.config else None
    return si if isinstance(si, str) else ""

  @property
  def result(self) -> dict[str, Any]:
    """The tool's return value, when this turn answers a function response."""
    if self.function_response is None:
      return {}
    return dict(self.function_response.response or {})


@dataclass
class Rule:
  """One scripted behaviour. Build rules with ``on_user``, ``on_tool`` and ``fallback``."""

  kind: str  # "user", "tool" or "fallback"
  pattern: Optional[re.Pattern[str]] = None
  tool: Optional[str] = None
  call: Optional[str] = None
  args: Optional[ArgsBuilder] = None
  reply: Optional[ReplyBuilder | str] = None
  description: str = ""
  when: Optional[Callable[["Turn"], bool]] = None
  calls: Optional[CallsBuilder] = None  # several function calls in one response

  def __repr__(self) -> str:
    action = (f"call {self.call}()" if self.call else "call several tools" if self.calls
              else "reply")
    return f"<Rule {self.description} -> {action}>"


def on_user(pattern: str, *, call: Optional[str] = None, args: Optional[ArgsBuilder] = None,
            reply: Optional[ReplyBuilder | str] = None,
            when: Optional[Callable[["Turn"], bool]] = None,
            calls: Optional[CallsBuilder] = None) -> Rule:
  """Match the latest user text (case-insensitive regex search): call a tool, or reply.

  ``when`` (optional) is a further condition on the whole request, e.g. "a question is
  waiting in the history": when it returns False the rule is skipped and the next one tried.
  ``calls`` (instead of ``call``) returns ``[(tool, args), ...]``: one response holding several
  function calls, which ADK runs as parallel tool calls.
  """
  if sum(x is not None for x in (call, reply, calls)) != 1:
    raise ValueError("on_user needs exactly one of call=, calls= or reply=")
  return Rule("user", pattern=re.compile(pattern, re.IGNORECASE), call=call, args=args,
              reply=reply, description=f"user says /{pattern}/", when=when, calls=calls)


def on_tool(tool: str, *, reply: ReplyBuilder | str) -> Rule:
  """Answer a function response from ``tool`` with text built from its result."""
  return Rule("tool", tool=tool, reply=reply, description=f"after {tool}()")


def fallback(reply: ReplyBuilder | str) -> Rule:
  """The reply when no other rule matches."""
  return Rule("fallback", reply=reply, description="anything else")


def _latest_user_text(request: LlmRequest) -> str:
  for content in reversed(request.contents):
    if content.role != "user":
      continue
    texts = [p.text for p in content.parts or [] if p.text]
    if texts:
      return "\n".join(texts)
  return ""


def _latest_function_response(request: LlmRequest) -> Optional[types.FunctionResponse]:
  """The function response that the model must now answer, if the last content is one."""
  if not request.contents:
    return None
  last = request.contents[-1]
  for part in last.parts or []:
    if part.function_response is not None:
      return part.function_response
  return None


class OfflineModel(BaseLlm):
  """A rule-driven ``BaseLlm``: real requests in, scripted (and labelled) responses out."""

  model_config = ConfigDict(arbitrary_types_allowed=True)

  model: str = "offline-scripted"
  rules: list[Rule] = Field(default_factory=list)
  max_kept_requests: int = 500  # a long `adk web` session must not grow memory forever
  _requests: list[LlmRequest] = PrivateAttr(default_factory=list)

  @property
  def requests(self) -> list[LlmRequest]:
    """The requests received, oldest first (the latest ``max_kept_requests``)."""
    return self._requests

  @property
  def last_request(self) -> Optional[LlmRequest]:
    return self._requests[-1] if self._requests else None

  def __repr__(self) -> str:
    return f"OfflineModel({len(self.rules)} rules, {len(self._requests)} requests seen)"

  def _text(self, rule: Rule, turn: Turn) -> str:
    reply = rule.reply
    text = reply(turn) if callable(reply) else str(reply)
    return f"{OFFLINE_TAG} {text}"

  def respond(self, request: LlmRequest) -> types.Content:
    """Choose the response for one request (pure: no I/O), following the rules in order."""
    function_response = _latest_function_response(request)
    turn = Turn(request=request, user_text=_latest_user_text(request),
                function_response=function_response)
    if function_response is not None:
      for rule in self.rules:
        if rule.kind == "tool" and rule.tool == function_response.name:
          return types.Content(role="model", parts=[types.Part(text=self._text(rule, turn))])
      text = f"{OFFLINE_TAG} {function_response.name} returned {turn.result}."
      return types.Content(role="model", parts=[types.Part(text=text)])
    for rule in self.rules:
      if rule.kind != "user" or rule.pattern is None:
        continue
      match = rule.pattern.search(turn.user_text)
      if match is None or (rule.when is not None and not rule.when(turn)):
        continue
      if rule.call is not None or rule.calls is not None:
        wanted = ([(rule.call, rule.args(match, turn) if rule.args else {})]
                  if rule.call is not None else list(rule.calls(match, turn)))
        declared = set(declared_tools(request))
        for name, _ in wanted:
          if declared and name not in declared:
            raise ValueError(f"offline rule calls {name!r}, but the agent declares only "
                             f"{sorted(declared)}")
        return types.Content(role="model", parts=[
            types.Part(function_call=types.FunctionCall(name=name, args=args))
            for name, args in wanted])
      return types.Content(role="model", parts=[types.Part(text=self._text(rule, turn))])
    for rule in self.rules:
      if rule.kind == "fallback":
        return types.Content(role="model", parts=[types.Part(text=self._text(rule, turn))])
    return types.Content(role="model",
                         parts=[types.Part(text=f"{OFFLINE_TAG} (no rule matched)")])

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """One response; with ``stream=True`` (``StreamingMode.SSE``) a text reply first arrives
    as ``partial`` chunks of a few words, then whole, as a streaming Gemini call does."""
    self._requests.append(llm_request)
    del self._requests[: -self.max_kept_requests]
    content = self.respond(llm_request)
    text = "".join(p.text or "" for p in content.parts or [])
    if stream and text and all(p.text for p in content.parts or []):
      for chunk in _chunks(text):
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                          partial=True)
    prompt = estimate_tokens(llm_request)
    answer = _content_chars(content) // 4 + 1
    usage = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt, candidates_token_count=answer,
        total_token_count=prompt + answer)
    yield LlmResponse(content=content, partial=False, turn_complete=True,
                      usage_metadata=usage)


def _chunks(text: str, words: int = 4) -> list[str]:
  """Split a reply into streaming chunks of a few words (they concatenate back to the text)."""
  pieces = re.findall(r"\S+\s*", text)
  return ["".join(pieces[i:i + words]) for i in range(0, len(pieces), words)]


def _content_chars(content: types.Content) -> int:
  total = 0
  for part in content.parts or []:
    if part.text:
      total += len(part.text)
    if part.function_call is not None:
      total += len(str(part.function_call.name)) + len(str(part.function_call.args))
    if part.function_response is not None:
      total += len(str(part.function_response.name)) + len(str(part.function_response.response))
  return total


def request_chars(request: LlmRequest) -> dict[str, int]:
  """How many characters each part of a request holds: the system instruction, the tool
  declarations (as the JSON they are sent as) and the contents (the history and the new
  message). A real model call carries all three, on every call."""
  tools = request.config.tools if request.config and request.config.tools else []
  declarations = json.dumps([t.model_dump(mode="json", exclude_none=True)
                             if hasattr(t, "model_dump") else str(t) for t in tools])
  return {"instruction": len(Turn(request=request, user_text="").instruction),
          "tool declarations": len(declarations) if tools else 0,
          "contents": sum(_content_chars(c) for c in request.contents)}


def estimate_tokens(request: LlmRequest) -> int:
  """A rough prompt size: every character a request carries (instruction, tool declarations,
  contents) divided by four, about four characters a token in English text. An estimate, not
  a tokenizer: good enough to compare a resumed session with a new one."""
  return sum(request_chars(request).values()) // 4 + 1


def declared_tools(request: LlmRequest) -> list[str]:
  """Names of the tools the agent declared to the model in this request.

  ADK keeps the tool objects in ``tools_dict``; what travels to Gemini is only the function
  declarations in ``config.tools``. Both are read, so the same rules work on a request built by
  ADK in this process and on one rebuilt from the JSON a fake Gemini endpoint received.
  """
  names = set(request.tools_dict)
  tools = request.config.tools if request.config and request.config.tools else []
  for tool in tools:
    for declaration in getattr(tool, "function_declarations", None) or []:
      if declaration.name:
        names.add(declaration.name)
  return sorted(names)
