"""
Django 3.2's sqlite backend with what concurrent requests need: WAL (readers never wait for the
writer), a busy timeout (a writer waits its turn instead of failing), and transactions that begin
IMMEDIATE (a transaction that reads and then writes takes the write lock first, so two of them
cannot deadlock into "database is locked"). Django 5.1 has this as OPTIONS["transaction_mode"].
"""
from django.db.backends.sqlite3 import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        conn = super().get_new_connection(conn_params)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _start_transaction_under_autocommit(self):
        self.cursor().execute("BEGIN IMMEDIATE")
