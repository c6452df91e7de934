"""Records: takes a model set, gives every (model, corpus) extraction it needs, each target's
log-probability and rank counts on disk, computed once and loaded as runs for the chapters.
"""
