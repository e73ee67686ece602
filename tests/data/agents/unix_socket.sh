#!/bin/sh
# A scripted coding agent that tries to make a Unix-domain socket (the way to the user's session
# bus, ssh agent or container daemon, which Landlock does not govern).
python3 -c "import socket; socket.socket(socket.AF_UNIX); print('socket made')" 2>&1
exit 0
