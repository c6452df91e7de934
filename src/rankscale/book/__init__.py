"""The book: takes a model set whose records are on disk, gives executed chapters and the HTML
site, with what every page shares (its banner, its figures' looks, its verdict table).
"""
