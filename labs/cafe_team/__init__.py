"""The cafe team: a host who seats customers and hands them to a barista, who asks a pastry
chef (an agent wrapped in ``AgentTool``) and keeps receipts as artifacts. Run it with
``adk run labs/cafe_team`` or ``adk web labs``, with ``--artifact_service_uri file://...`` to
keep the receipts in a folder (lesson 7)."""

from . import agent  # noqa: F401  (ADK's loader looks for `agent.app` / `agent.root_agent`)
