"""Pick the model the course's agents run on: Gemini when a key is configured, else offline.

One rule for every lab and lesson, so that the same notebook runs on a student's laptop with a
key and in CI without one. Nothing here ever prints a key.
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Union

from google.adk.models.base_llm import BaseLlm

from .offline_model import OfflineModel, Rule

DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_MODEL_VARIABLE = "ADKCOURSE_GEMINI_MODEL"
FORCE_OFFLINE_VARIABLE = "ADKCOURSE_OFFLINE"


def gemini_configured(environ: Optional[Mapping[str, str]] = None) -> bool:
  """True when the environment holds what google-genai needs to reach Gemini."""
  env = os.environ if environ is None else environ
  if env.get(FORCE_OFFLINE_VARIABLE, "").lower() in {"1", "true", "yes"}:
    return False
  if env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY"):
    return True
  vertex = env.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in {"1", "true", "yes"}
  return vertex and bool(env.get("GOOGLE_CLOUD_PROJECT"))


def pick_model(offline_rules: list[Rule], *,
               environ: Optional[Mapping[str, str]] = None) -> Union[str, BaseLlm]:
  """The model for an agent: a Gemini model name with a key, an ``OfflineModel`` without."""
  env = os.environ if environ is None else environ
  if gemini_configured(env):
    return env.get(GEMINI_MODEL_VARIABLE, DEFAULT_GEMINI_MODEL)
  return OfflineModel(rules=offline_rules)


def describe_model(model: Union[str, BaseLlm]) -> str:
  """One line saying which model is in use (never a key)."""
  if isinstance(model, OfflineModel):
    return (f"Model: offline scripted model ({len(model.rules)} rules; no network, no key). "
            "Set GOOGLE_API_KEY to use Gemini.")
  name = model if isinstance(model, str) else getattr(model, "model", type(model).__name__)
  return f"Model: Gemini ({name}), credentials found in the environment."
