"""Runs from the editor: the run summary, runs on worker threads, and watching the runs dir.

Protocol-free except `manager.py`, which sends progress and messages through the server.
"""
