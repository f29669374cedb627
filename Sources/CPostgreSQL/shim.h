// libpq for Swift (Debian libpq-dev): the PostgreSQL client library. The PostgreSQL module is its
// only user.
#ifndef CPOSTGRESQL_SHIM_H
#define CPOSTGRESQL_SHIM_H

#include <libpq-fe.h>

// The PG_DIAG_* field codes are character-constant macros, which Swift does not import: these
// wrappers read the fields of an error result that PostgreSQLError keeps (NULL when absent).

static inline const char *cpq_result_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

static inline const char *cpq_result_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

static inline const char *cpq_result_detail(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
}

static inline const char *cpq_result_hint(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_HINT);
}

// A notice processor that drops notices (NOTICE: ... does not exist, skipping), which libpq would
// otherwise print on standard error.
static void cpq_ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

static inline void cpq_ignore_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, cpq_ignore_notice, NULL);
}

#endif
