#!/usr/bin/python3
"""Xapian BM25 peer for bench/relevance.ts: reads {"docs": [...], "queries": [...], "depth": n} as JSON on stdin,
indexes title and body with the English stemmer in an in-memory database, ranks each query with BM25Weight
(Xapian's defaults: k1 1, k2 0, k3 1, b 0.5) and writes {"<query id>": ["<doc id>", ...]} as JSON on stdout."""
import json
import sys

import xapian

request = json.load(sys.stdin)
stemmer = xapian.Stem("english")
db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
indexer = xapian.TermGenerator()
indexer.set_stemmer(stemmer)
for doc in request["docs"]:
    xdoc = xapian.Document()
    indexer.set_document(xdoc)
    indexer.index_text(doc["title"])
    indexer.increase_termpos()
    indexer.index_text(doc["text"])
    xdoc.set_data(doc["id"])
    db.add_document(xdoc)

parser = xapian.QueryParser()
parser.set_stemmer(stemmer)
parser.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
parser.set_database(db)
parser.set_default_op(xapian.Query.OP_OR)
enquire = xapian.Enquire(db)
enquire.set_weighting_scheme(xapian.BM25Weight())
out = {}
for query in request["queries"]:
    # Flags 0: the queries are plain English (no boolean syntax); every word is an OR-ed, stemmed term.
    enquire.set_query(parser.parse_query(query["text"], 0))
    out[str(query["id"])] = [m.document.get_data().decode() for m in enquire.get_mset(0, request["depth"])]
json.dump(out, sys.stdout)
