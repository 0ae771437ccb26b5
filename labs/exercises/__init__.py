"""Student versions of the course's exercises (stubs with a hint), generated from
``exercises/`` by ``scripts/generate_exercises.py``. Work in a copy, then hand it in."""
