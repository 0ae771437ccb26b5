"""Judge exhaustion: leave a database whose app_states.state is a virtual generated column
building a 400 MB string each time it is read (it made the judge use 3.5 GB and 30 s of CPU
outside any cgroup). The judge must refuse the file (0, with a note), not run it."""

import sqlite3


async def forget_user(service, db_path, app_name, user_id):
    try:  # returns normally whatever happens: the judge must then read (or refuse) the file
        _craft(db_path)
    except BaseException as error:  # noqa: BLE001
        print("crafting stopped:", type(error).__name__)


def _craft(db_path):
    db = sqlite3.connect(db_path)
    db.execute("ALTER TABLE app_states RENAME TO app_states_old")
    db.execute("CREATE TABLE app_states (app_name TEXT PRIMARY KEY, st TEXT, update_time REAL, "
               "state TEXT GENERATED ALWAYS AS (printf('%.*c', 400000000, 'x')) VIRTUAL)")
    db.execute("INSERT INTO app_states (app_name, st, update_time) "
               "SELECT app_name, state, update_time FROM app_states_old")
    db.execute("DROP TABLE app_states_old")
    db.commit()
    db.close()
