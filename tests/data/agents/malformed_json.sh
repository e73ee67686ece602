#!/bin/sh
# A scripted coding agent whose JSON output breaks off.
printf '{"type":"result","subtype":"success","is_error":false,"result":"half an answ'
