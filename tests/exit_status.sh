#!/bin/sh
# Runs a command and prints its exit status after its output ("exit N"), so that a
# CLI test's expected output can assert the status too.
"$@" 2>&1
echo "exit $?"
