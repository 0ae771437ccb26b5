"""The course's own machinery: the offline model, session services, table inspection,
quizzes and grading. Lessons import from here only what is plumbing; the ADK calls being
taught stay visible in the notebooks."""

__version__ = "0.1.0"
