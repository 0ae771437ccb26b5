"""A local fake of the Gemini REST API, answering with the course's scripted rules.

Why: with a key set, the labs' agents run on ``google.adk.models.Gemini``, through the
google-genai client, over HTTP. CI has no real key and no network, yet must prove that path
works. This server speaks the Gemini API's wire format on 127.0.0.1, so everything up to the
socket is the real thing; only the answers are scripted, by the same rules (and the same rule
engine, ``OfflineModel.respond``) as the offline model, so a conversation is word for word the
one the offline model has.

    python -m adkcourse.fake_gemini [--port 0] [--log requests.jsonl]   # prints its URL
    GOOGLE_API_KEY=fake GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT adk run labs/cafe_concierge

or, in Python (tests, ``scripts/with_fake_gemini.py``)::

    with FakeGemini() as server:
        ...  # server.url, server.calls()

Which rules answer: ADK starts every system instruction with
``You are an agent. Your internal name is "NAME".``; the server reads NAME and takes the rules
registered for it: ``FakeGemini(rules={NAME: [...]})``, else ``model_choice.SCRIPTED_RULES``
(the labs), else ``$ADKCOURSE_FAKE_GEMINI_RULES`` (``NAME=package.module:ATTR,...``). An agent
with no rules gets a plain text reply saying so (logged with ``"rules": null``), never an error,
so a live cell with an ad-hoc agent still runs.

Every call is recorded (``server.calls()``; and one JSON line per call in ``--log`` /
``$ADKCOURSE_FAKE_GEMINI_LOG``): method, model, agent, what was sent and answered. The API key
is checked for presence only and is never recorded or printed.

Where this server differs from the real API (all checked against google-genai 1.x requests):

* Stricter: a request with no key (header ``x-goog-api-key`` or ``?key=``) gets 403, as the real
  API does, but any non-empty key is accepted; ``contents`` must be present and every content
  must parse as ``google.genai.types.Content`` (unknown fields rejected, 400, like the real
  API); a scripted rule that calls a tool the request did not declare is a 400 (the real model
  would simply never call it); a rule that raises is a 500 with the error text.
* Looser: any model name is served (the real API 404s unknown models); ``generationConfig``
  (temperature, max tokens, response schema), ``safetySettings``, ``toolConfig`` and
  ``cachedContent`` are accepted and ignored; no quotas or rate limits (no 429); token counts
  are the offline model's estimate (characters / 4), not a tokenizer's; function calls carry
  no ``thoughtSignature`` and none is required back; one candidate, no thoughts, no grounding.
* Streaming (``:streamGenerateContent?alt=sse``): a text reply comes as chunks of a few words
  (``data: {...}`` events over chunked transfer encoding), ``finishReason`` and the full
  ``usageMetadata`` on the last one; a function call comes whole in one chunk, as Gemini
  sends it. Only ``alt=sse`` is served (the JSON-array stream without it is a 400).
* Other endpoints (``countTokens``, ``embedContent``, files, caches, Live API websockets) 404.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Mapping, Optional
from urllib.parse import parse_qs, urlsplit

from google.adk.models.llm_request import LlmRequest
from google.genai import types
from pydantic import ValidationError

from .model_choice import SCRIPTED_RULES, load_rules
from .offline_model import OfflineModel, Rule, _chunks, _content_chars, estimate_tokens

RULES_VARIABLE = "ADKCOURSE_FAKE_GEMINI_RULES"
LOG_VARIABLE = "ADKCOURSE_FAKE_GEMINI_LOG"
VERTEX_VARIABLES = ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE")
MAX_KEPT_CALLS = 1000  # in memory; the JSON-lines log keeps everything
MAX_BODY_BYTES = 20 * 1024 * 1024  # the real API's request limit is 20 MB too

_AGENT_NAME = re.compile(r'Your internal name is "([^"]+)"')
_PATH = re.compile(r"^/(?P<version>v1beta|v1|v1alpha)/models/(?P<model>[^/:]+)"
                   r":(?P<method>generateContent|streamGenerateContent)$")


class ApiError(Exception):
  """An error answered the way the Gemini API answers errors: an HTTP status and
  ``{"error": {"code", "message", "status"}}``."""

  def __init__(self, code: int, status: str, message: str) -> None:
    super().__init__(message)
    self.code, self.status, self.message = code, status, message

  def body(self) -> dict[str, Any]:
    return {"error": {"code": self.code, "message": self.message, "status": self.status}}


def parse_rules_variable(value: str) -> dict[str, str]:
  """``"tutor=labs.tutor.rules:OFFLINE_RULES,x=pkg.mod:RULES"`` -> {name: spec}."""
  specs: dict[str, str] = {}
  for item in filter(None, (part.strip() for part in value.split(","))):
    name, sep, spec = item.partition("=")
    if not sep or not name.strip() or ":" not in spec:
      raise ValueError(f"{RULES_VARIABLE}: expected NAME=package.module:ATTR, got {item!r}")
    specs[name.strip()] = spec.strip()
  return specs


def request_from_json(body: Mapping[str, Any], model: str) -> LlmRequest:
  """The ``LlmRequest`` a scripted rule needs, rebuilt from a generateContent JSON body: the
  contents, the system instruction as one string, the declared function names."""
  if not isinstance(body, Mapping):
    raise ApiError(400, "INVALID_ARGUMENT", "Invalid JSON payload: expected an object.")
  raw_contents = body.get("contents")
  if not raw_contents or not isinstance(raw_contents, list):
    raise ApiError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is "
                   "not specified")
  try:
    contents = [types.Content.model_validate(item) for item in raw_contents]
  except ValidationError as error:
    raise ApiError(400, "INVALID_ARGUMENT",
                   f"Invalid JSON payload received in contents: {error.errors()[0]['msg']} "
                   f"at {error.errors()[0]['loc']}") from None
  instruction = None
  raw_instruction = body.get("systemInstruction")
  if raw_instruction:
    try:
      parsed = types.Content.model_validate(raw_instruction)
    except ValidationError as error:
      raise ApiError(400, "INVALID_ARGUMENT", "Invalid JSON payload received in "
                     f"systemInstruction: {error.errors()[0]['msg']}") from None
    instruction = "\n".join(part.text or "" for part in parsed.parts or [])
  tools = []
  for tool in body.get("tools") or []:
    declarations = (tool or {}).get("functionDeclarations") or []
    if any(not isinstance(d, Mapping) or not d.get("name") for d in declarations):
      raise ApiError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.tools: function "
                     "declaration name must not be empty")
    try:  # whole, so that the prompt-size estimate counts the same characters as offline
      tools.append(types.Tool.model_validate(tool))
    except ValidationError:  # a field google-genai does not know: names are all rules need
      tools.append(types.Tool(function_declarations=[
          types.FunctionDeclaration(name=d["name"], description=d.get("description"))
          for d in declarations]))
  config = types.GenerateContentConfig(system_instruction=instruction, tools=tools or None)
  return LlmRequest(model=model, contents=contents, config=config)


def agent_name(request: LlmRequest) -> Optional[str]:
  """The ADK agent that sent the request, from the identity line ADK puts in every system
  instruction; None for a request that has none (a raw google-genai call, say)."""
  instruction = request.config.system_instruction if request.config else None
  found = _AGENT_NAME.search(instruction) if isinstance(instruction, str) else None
  return found.group(1) if found else None


def _part_json(part: types.Part) -> dict[str, Any]:
  if part.function_call is not None:
    return {"functionCall": {"name": part.function_call.name,
                             "args": part.function_call.args or {}}}
  return {"text": part.text or ""}


def _usage(prompt: int, answer: Optional[int]) -> dict[str, int]:
  if answer is None:  # an early streaming chunk: the prompt is known, the answer is not
    return {"promptTokenCount": prompt, "totalTokenCount": prompt}
  return {"promptTokenCount": prompt, "candidatesTokenCount": answer,
          "totalTokenCount": prompt + answer}


def response_json(parts: list[dict[str, Any]], model: str, response_id: str, *,
                  prompt_tokens: int, answer_tokens: Optional[int],
                  finished: bool) -> dict[str, Any]:
  """One GenerateContentResponse as the REST API writes it (camelCase)."""
  candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
  if finished:
    candidate["finishReason"] = "STOP"
  return {"candidates": [candidate], "usageMetadata": _usage(prompt_tokens, answer_tokens),
          "modelVersion": model, "responseId": response_id}


class FakeGemini:
  """The fake endpoint: a ``ThreadingHTTPServer`` on 127.0.0.1 in a background thread."""

  def __init__(self, rules: Optional[Mapping[str, list[Rule]]] = None, *, port: int = 0,
               log_path: Optional[str] = None,
               environ: Optional[Mapping[str, str]] = None) -> None:
    env = os.environ if environ is None else environ
    self._specs = {**SCRIPTED_RULES, **parse_rules_variable(env.get(RULES_VARIABLE, ""))}
    self._models: dict[str, OfflineModel] = {
        name: OfflineModel(rules=list(agent_rules)) for name, agent_rules in (rules or {}).items()}
    self.log_path = log_path if log_path is not None else env.get(LOG_VARIABLE) or None
    self._calls: list[dict[str, Any]] = []
    self._lock = threading.Lock()
    self._port = port
    self._server: Optional[ThreadingHTTPServer] = None
    self._thread: Optional[threading.Thread] = None

  # --- lifecycle ---------------------------------------------------------------------------

  def start(self) -> "FakeGemini":
    if self._server is not None:
      return self
    handler = type("Handler", (_Handler,), {"fake": self})
    self._server = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
    self._server.daemon_threads = True  # idle keep-alive connections never block stop()
    self._thread = threading.Thread(target=self._server.serve_forever, name="fake-gemini",
                                    kwargs={"poll_interval": 0.1}, daemon=True)
    self._thread.start()
    return self

  def stop(self) -> None:
    server, self._server = self._server, None
    if server is not None:
      server.shutdown()
      server.server_close()
    if self._thread is not None:
      self._thread.join(timeout=5)
      self._thread = None

  def __enter__(self) -> "FakeGemini":
    return self.start()

  def __exit__(self, *exc: object) -> None:
    self.stop()

  @property
  def url(self) -> str:
    """The base URL for ``GOOGLE_GEMINI_BASE_URL`` (no trailing slash)."""
    if self._server is None:
      raise RuntimeError("the fake Gemini endpoint is not running")
    host, port = self._server.server_address[:2]
    return f"http://{host}:{port}"

  def environment(self, key: str = "fake-key-for-tests") -> dict[str, str]:
    """The variables that send google-genai (hence ADK's Gemini) to this endpoint. Remove
    ``VERTEX_VARIABLES`` too: with one of them true, google-genai would use Vertex AI."""
    from .model_choice import BASE_URL_VARIABLE, FAKE_GEMINI_VARIABLE

    return {"GOOGLE_API_KEY": key, BASE_URL_VARIABLE: self.url, FAKE_GEMINI_VARIABLE: self.url}

  # --- rules and answers -------------------------------------------------------------------

  def register(self, name: str, rules: list[Rule]) -> None:
    """Script one more agent (in-process servers only)."""
    with self._lock:
      self._models[name] = OfflineModel(rules=list(rules))

  def _model_for(self, name: Optional[str]) -> Optional[OfflineModel]:
    if name is None:
      return None
    with self._lock:
      if name in self._models:
        return self._models[name]
      spec = self._specs.get(name)
    if spec is None:
      return None
    model = OfflineModel(rules=load_rules(spec))
    with self._lock:
      return self._models.setdefault(name, model)

  def answer(self, request: LlmRequest) -> tuple[types.Content, Optional[str], bool]:
    """The scripted answer: (content, agent name, whether rules were found)."""
    name = agent_name(request)
    model = self._model_for(name)
    if model is None:
      text = (f"[fake gemini] no scripted rules for agent {name!r}: register them in "
              f"adkcourse.model_choice.SCRIPTED_RULES or ${RULES_VARIABLE}.")
      return types.Content(role="model", parts=[types.Part(text=text)]), name, False
    try:
      return model.respond(request), name, True
    except ValueError as error:  # e.g. a rule calls a tool this request does not declare
      raise ApiError(400, "INVALID_ARGUMENT", str(error)) from None

  # --- the request log ---------------------------------------------------------------------

  def _record(self, entry: dict[str, Any]) -> None:
    with self._lock:
      self._calls.append(entry)
      del self._calls[:-MAX_KEPT_CALLS]
      if self.log_path:
        with open(self.log_path, "a", encoding="utf-8") as log:
          log.write(json.dumps(entry, default=str) + "\n")

  def calls(self) -> list[dict[str, Any]]:
    """The calls received, oldest first (the latest ``MAX_KEPT_CALLS``)."""
    with self._lock:
      return list(self._calls)

  def clear(self) -> None:
    with self._lock:
      self._calls.clear()


def read_log(path: str) -> list[dict[str, Any]]:
  """The entries of a JSON-lines request log (for tests and the wrapper's summary)."""
  try:
    with open(path, encoding="utf-8") as log:
      return [json.loads(line) for line in log if line.strip()]
  except FileNotFoundError:
    return []


def _summary(content: types.Content) -> dict[str, Any]:
  calls = [p.function_call for p in content.parts or [] if p.function_call is not None]
  if calls:  # the log names every call of a response with parallel calls, not just the first
    summary = {"function_call": calls[0].name, "args": calls[0].args or {}}
    if len(calls) > 1:
      summary["more_calls"] = [{"function_call": c.name, "args": c.args or {}} for c in calls[1:]]
    return summary
  return {"text": "".join(p.text or "" for p in content.parts or [])}


class _Handler(BaseHTTPRequestHandler):
  fake: FakeGemini  # set on the subclass built by FakeGemini.start
  protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, as google-genai expects
  server_version = "adkcourse-fake-gemini"
  timeout = 60  # an idle keep-alive connection is closed after a minute

  def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
    pass  # quiet: the request log is the record, and it never holds the key

  def do_GET(self) -> None:  # noqa: N802 - stdlib naming
    self._send_error(ApiError(404, "NOT_FOUND", "The fake Gemini endpoint serves only "
                              "POST models/{model}:generateContent and :streamGenerateContent."))

  def do_POST(self) -> None:  # noqa: N802 - stdlib naming
    started = time.time()
    url = urlsplit(self.path)
    query = parse_qs(url.query)
    entry: dict[str, Any] = {"time": round(started, 3), "path": url.path}
    try:
      length = int(self.headers.get("Content-Length") or 0)
      if length > MAX_BODY_BYTES:
        raise ApiError(400, "INVALID_ARGUMENT", "Request payload size exceeds the limit.")
      raw = self.rfile.read(length) if length else b""
      found = _PATH.match(url.path)
      if found is None:
        raise ApiError(404, "NOT_FOUND", f"Unknown path {url.path}: the fake Gemini endpoint "
                       "serves POST /v1beta/models/{model}:generateContent and "
                       ":streamGenerateContent?alt=sse.")
      model, method = found["model"], found["method"]
      entry.update(method=method, model=model)
      if not (self.headers.get("x-goog-api-key") or query.get("key", [""])[0]):
        raise ApiError(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers "
                       "(callers without established identity). Please use API Key or other "
                       "form of API consumer identity to call this API.")
      stream = method == "streamGenerateContent"
      if stream and query.get("alt", [""])[0] != "sse":
        raise ApiError(400, "INVALID_ARGUMENT", "The fake endpoint streams only with ?alt=sse "
                       "(what google-genai sends).")
      try:
        body = json.loads(raw or b"{}")
      except ValueError:
        raise ApiError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.") from None
      request = request_from_json(body, model)
      try:
        content, name, scripted = self.fake.answer(request)
      except ApiError:
        raise
      except Exception as error:  # a rule's bug: report it, like a 500 from the API
        raise ApiError(500, "INTERNAL", f"scripted rule failed: {type(error).__name__}: "
                       f"{error}") from None
      last_user = next((p.text for c in reversed(request.contents) if c.role == "user"
                        for p in c.parts or [] if p.text), None)
      entry.update(agent=name, rules=scripted, contents=len(request.contents),
                   tools=sorted(d.name for t in request.config.tools or []
                                for d in t.function_declarations or []),
                   last_user_text=last_user, reply=_summary(content), status=200)
      prompt = estimate_tokens(request)
      answer = _content_chars(content) // 4 + 1
      response_id = uuid.uuid4().hex[:16]
      parts = [_part_json(part) for part in content.parts or []]
    except ApiError as error:
      entry.update(status=error.code, error=error.message)
      self._log(entry, started)
      self._send_error(error)
      return
    # Logged before the answer is sent: a client that has its answer finds the call logged.
    self._log(entry, started)
    if stream:
      self._send_stream(_stream_events(parts, model, response_id, prompt, answer))
    else:
      self._send_json(200, response_json(parts, model, response_id, prompt_tokens=prompt,
                                         answer_tokens=answer, finished=True))

  def _log(self, entry: dict[str, Any], started: float) -> None:
    if "method" in entry:  # a generateContent call (not a stray path)
      entry["seconds"] = round(time.time() - started, 4)
      self.fake._record(entry)

  def _send_json(self, code: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    self.send_response(code)
    self.send_header("Content-Type", "application/json; charset=UTF-8")
    self.send_header("Content-Length", str(len(data)))
    self.end_headers()
    self.wfile.write(data)

  def _send_error(self, error: ApiError) -> None:
    self._send_json(error.code, error.body())

  def _send_stream(self, events: Iterator[dict[str, Any]]) -> None:
    self.send_response(200)
    self.send_header("Content-Type", "text/event-stream")
    self.send_header("Transfer-Encoding", "chunked")
    self.end_headers()
    for event in events:
      data = f"data: {json.dumps(event)}\r\n\r\n".encode()
      self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
      self.wfile.flush()
    self.wfile.write(b"0\r\n\r\n")
    self.wfile.flush()


def _stream_events(parts: list[dict[str, Any]], model: str, response_id: str, prompt: int,
                   answer: int) -> Iterator[dict[str, Any]]:
  """The SSE events of one streamed answer: text in chunks of a few words (the offline
  model's chunking), anything else in one event; the last event finishes the answer."""
  if len(parts) == 1 and "text" in parts[0] and parts[0]["text"]:
    pieces = [{"text": chunk} for chunk in _chunks(parts[0]["text"])]
  else:
    pieces = parts
  for number, piece in enumerate(pieces, start=1):
    last = number == len(pieces)
    yield response_json([piece], model, response_id, prompt_tokens=prompt,
                        answer_tokens=answer if last else None, finished=last)


def main(argv: Optional[list[str]] = None) -> int:
  parser = argparse.ArgumentParser(
      description="Serve a fake Gemini API on 127.0.0.1, answering with the course's scripted "
                  "rules. Prints its URL (for GOOGLE_GEMINI_BASE_URL), then serves until "
                  "interrupted.")
  parser.add_argument("--port", type=int, default=0, help="0 (default): any free port")
  parser.add_argument("--log", default=None, help=f"JSON-lines request log (or ${LOG_VARIABLE})")
  args = parser.parse_args(argv)
  server = FakeGemini(port=args.port, log_path=args.log).start()
  print(server.url, flush=True)
  stopped = threading.Event()
  for signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(signum, lambda *_: stopped.set())
  try:
    while not stopped.wait(0.5):
      pass
  finally:
    server.stop()
  return 0


if __name__ == "__main__":
  sys.exit(main())
