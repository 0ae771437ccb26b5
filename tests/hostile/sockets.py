"""Sockets the sandbox's network namespace does not stop: AF_VSOCK (the host of a virtual
machine), AF_NETLINK (the kernel), AF_PACKET, plain AF_INET; create and bind each, print what
happened. It also does the work: full marks, every socket refused."""

import socket
import sqlite3


def _try_sockets():
    for name, kind, address in (("AF_VSOCK", socket.SOCK_STREAM, (0xFFFFFFFF, 5000)),
                                ("AF_NETLINK", socket.SOCK_RAW, (0, 0)),
                                ("AF_PACKET", socket.SOCK_RAW, None),
                                ("AF_INET", socket.SOCK_STREAM, ("127.0.0.1", 0))):
        family = getattr(socket, name, None)
        if family is None:
            print(f"SOCKET {name}: unknown here")
            continue
        try:
            sock = socket.socket(family, kind)
        except OSError as error:
            print(f"SOCKET {name}: refused ({error.errno})")
            continue
        try:
            if address is not None:
                sock.bind(address)
            print(f"SOCKET {name}: CREATED AND BOUND")
        except OSError as error:
            print(f"SOCKET {name}: CREATED, bind failed ({error.errno})")
        finally:
            sock.close()


async def forget_user(service, db_path, app_name, user_id):
    _try_sockets()
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
    connection = sqlite3.connect(db_path)
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
