"""The cafe concierge: a barista agent that remembers orders (per session) and dietary
preferences (per user). Run it with ``adk run labs/cafe_concierge`` or ``adk web labs``."""

from . import agent  # noqa: F401  (ADK's loader looks for `agent.root_agent`)
