"""The tutor: quizzes a student on python or sql and remembers their progression per user.

Run it with ``python labs/tutor/main.py --user alice`` (sessions in a SQLite file), or with
``adk run labs/tutor`` / ``adk web labs``."""

from . import agent  # noqa: F401  (ADK's loader looks for `agent.root_agent`)
