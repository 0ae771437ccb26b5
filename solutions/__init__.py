"""Reference solutions of the course's exercises, generated from ``exercises/`` by
``scripts/generate_exercises.py``: do not edit the modules here, edit their source."""
