-- rankwise input checks: the table macros (rw_ranked, rw_judgments, rw_evaluate) refuse what
-- would make their numbers wrong, with an error naming the problem, the column and an example:
--   run:   NULL query_id or doc_id, NULL or NaN score (±infinity is allowed: it ranks first or
--          last), a document listed twice for one query;
--   qrels: NULL query_id or doc_id, NULL, NaN or infinite relevance, a document judged twice;
--   parameters: k (and max_rank) must be positive integers, ties a known policy.
-- Each check macro returns one row, ok = true, or calls error('rankwise: ...'); a table macro
-- keeps its rows WHERE (NOT checks OR (SELECT ok FROM rw_check_run(run_table))): an
-- uncorrelated scalar subquery, computed once per statement (checks := false skips it).
-- One aggregation pass per input: its rows grouped by (query_id, doc_id) (exact: no hashes),
-- then the groups reduced to one row; an example is spelled only for the groups at fault, and
-- the smallest (as text) is shown, so the message does not depend on the engine's row order.
-- The same SQL runs on Spark through rankwise.to_sql (see rankwise._sql.inline.DIALECT_RULES:
-- error() is spelled raise_error() there).

-- A value as it appears in a message: 'text' (quoted), or NULL.
CREATE OR REPLACE TEMP MACRO rw_quoted(x) AS coalesce('''' || CAST(x AS STRING) || '''', 'NULL');

-- Whether a relevance is refused: NULL, NaN or infinite (qrels, subtopic qrels).
CREATE OR REPLACE TEMP MACRO rw_bad_relevance(relevance) AS
    relevance IS NULL OR isnan(CAST(relevance AS DOUBLE)) OR abs(CAST(relevance AS DOUBLE)) = CAST('Infinity' AS DOUBLE);

-- true, or the error naming the first fault found in an input's grouped counts. subject:
-- 'run' or 'qrels'; null_query / null_doc / bad_value / duplicate: an example of each fault
-- (NULL: none); value_fault: what a bad value is, in words.
CREATE OR REPLACE TEMP MACRO rw_check_verdict(subject, query_id_name, doc_id_name, value_name, value_fault, null_query, null_doc, bad_value, duplicate) AS
    CASE
        WHEN null_query IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || query_id_name || ' holds NULL values (document ' || null_query || ')')
        WHEN null_doc IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || doc_id_name || ' holds NULL values (query ' || null_doc || ')')
        WHEN bad_value IS NOT NULL THEN error('rankwise: the ' || subject || (CASE WHEN subject = 'qrels' THEN '''' ELSE '''s' END)
            || ' column ' || value_name || ' holds ' || value_fault || ' (query ' || bad_value || ')')
        WHEN duplicate IS NOT NULL THEN error('rankwise: the ' || subject || ' lists document ' || duplicate)
        ELSE true
    END;

-- One row, ok = true, or an error naming the run's first fault (subject: 'run', or 'base run' for the base
-- run of the base-run family, checked as a run). The *_name parameters are the
-- column names the message shows (rankwise.to_sql passes the user's own).
CREATE OR REPLACE TEMP MACRO rw_check_run(run_table, query_id_name := 'query_id', doc_id_name := 'doc_id', score_name := 'score', subject := 'run') AS TABLE
    WITH rw_pairs AS (
        SELECT query_id, doc_id, count(*) AS n,
            sum(CASE WHEN score IS NULL OR isnan(CAST(score AS DOUBLE)) THEN 1 ELSE 0 END) AS bad
        FROM query_table(run_table) AS rw_cost_rows
        GROUP BY query_id, doc_id
    )
    SELECT rw_check_verdict(subject, query_id_name, doc_id_name, score_name, 'NULL or NaN values',
        min(CASE WHEN query_id IS NULL THEN rw_quoted(doc_id) END),
        min(CASE WHEN query_id IS NOT NULL AND doc_id IS NULL THEN rw_quoted(query_id) END),
        min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END),
        min(CASE WHEN n > 1 AND query_id IS NOT NULL AND doc_id IS NOT NULL
                 THEN rw_quoted(doc_id) || ' more than once for query ' || rw_quoted(query_id) END)) AS ok
    FROM rw_pairs;

-- One row, ok = true, or an error naming the qrels' first fault (as rw_check_run).
CREATE OR REPLACE TEMP MACRO rw_check_qrels(qrels_table, query_id_name := 'query_id', doc_id_name := 'doc_id', relevance_name := 'relevance') AS TABLE
    WITH rw_pairs AS (
        SELECT query_id, doc_id, count(*) AS n,
            sum(CASE WHEN rw_bad_relevance(relevance) THEN 1 ELSE 0 END) AS bad
        FROM query_table(qrels_table)
        GROUP BY query_id, doc_id
    )
    SELECT rw_check_verdict('qrels', query_id_name, doc_id_name, relevance_name,
        'a non-finite value (NULL, NaN or infinite)',
        min(CASE WHEN query_id IS NULL THEN rw_quoted(doc_id) END),
        min(CASE WHEN query_id IS NOT NULL AND doc_id IS NULL THEN rw_quoted(query_id) END),
        min(CASE WHEN bad > 0 THEN rw_quoted(query_id) END),
        min(CASE WHEN n > 1 AND query_id IS NOT NULL AND doc_id IS NOT NULL
                 THEN rw_quoted(doc_id) || ' more than once for query ' || rw_quoted(query_id) END)) AS ok
    FROM rw_pairs;

-- true, or an error: parameter name must be a positive integer up to 2**62 (what the engines'
-- 64-bit integers hold safely; k, max_rank); NULL too with
-- null_ok (max_rank NULL: no cutoff).
CREATE OR REPLACE TEMP MACRO rw_check_positive(name, k, null_ok := false) AS
    CASE
        WHEN k IS NULL AND null_ok THEN true
        WHEN k > 4611686018427387904 THEN error('rankwise: ' || name || ' must be at most 2**62, got ' || CAST(k AS STRING))
        WHEN k >= 1 AND k = floor(k) THEN true
        ELSE error('rankwise: ' || name || ' must be a positive integer' || (CASE WHEN null_ok THEN ' or NULL' ELSE '' END)
                   || ', got ' || coalesce(CAST(k AS STRING), 'NULL'))
    END;

-- true, or an error: ties must name a tie policy of rw_ranked.
CREATE OR REPLACE TEMP MACRO rw_check_ties(ties) AS
    CASE
        -- generated: rw_check_ties
        WHEN ties IN ('trec_eval', 'doc_asc', 'doc_desc_numeric', 'input', 'optimistic', 'pessimistic') THEN true
        ELSE error('rankwise: ties must be one of ''trec_eval'', ''doc_asc'', ''doc_desc_numeric'', ''input'', ''optimistic'', ''pessimistic'', got ' || rw_quoted(ties))
        -- end generated: rw_check_ties
    END;

-- One row, ok = true, or an error: a run's cost column (rankwise's cost=, the C/W/L measures'
-- document costs) holds a NULL, NaN, negative or infinite value. cost_name: the column name
-- the message shows.
CREATE OR REPLACE TEMP MACRO rw_check_costs(run_table, cost_name := 'cost') AS TABLE
    WITH rw_costs AS (
        SELECT min(CASE WHEN cost IS NULL OR isnan(CAST(cost AS DOUBLE)) OR cost < 0
                             OR abs(CAST(cost AS DOUBLE)) = CAST('Infinity' AS DOUBLE)
                        THEN rw_quoted(query_id) END) AS bad
        FROM query_table(run_table) AS rw_cost_rows
    )
    SELECT CASE
        WHEN bad IS NOT NULL THEN error('rankwise: the run''s column ''' || cost_name
            || ''' holds NULL, NaN, negative or infinite cost values (query ' || bad || '); a cost must be a finite number >= 0')
        ELSE true
    END AS ok
    FROM rw_costs;
