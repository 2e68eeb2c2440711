// The Postgres queue's two hot statements (pgQueue.ts), each one round trip: a claim (UPDATE … WHERE
// task_id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING …: pick, mark running
// with a lease, return the row, its plan and the running tasks that may need recovery) and a result (merge
// it while this runner holds the task, with the transcript's pending lines). Times come from the
// database's clock, written as JavaScript's toISOString writes them, so both queues store the same form.
/** A timestamp as JavaScript's toISOString writes it (the form the file queue stores). */
const iso = (t: string) => `to_char((${t}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const LEASE = `now.n + $2 * interval '1 millisecond'`;
// $1 task ids to skip, $2 lease (ms), $3 this runner's PID space, $4 its pid, $5 its name, $6 the owner record.
// A count that is not a number leaves the row unparseable, so it is set aside rather than run.
export const CLAIM_SQL = `
WITH now AS (SELECT clock_timestamp() AS n),
claimed AS (
  UPDATE devx_tasks t SET status = 'running', lease_until = ${LEASE}, owner_host = $3, owner_pid = $4, owner_runner = $5,
         data = t.data || jsonb_build_object(
           'status', 'running',
           'startedAt', ${iso('now.n')},
           'owner', $6::jsonb,
           'leaseExpiresAt', ${iso(LEASE)},
           'runs', CASE WHEN jsonb_typeof(t.data->'runs') = 'number' THEN to_jsonb((t.data->>'runs')::numeric + 1) ELSE 'null'::jsonb END,
           'queueDeathsAtFirstRun', CASE WHEN jsonb_typeof(t.data->'queueDeathsAtFirstRun') = 'number' THEN t.data->'queueDeathsAtFirstRun'
                                         ELSE to_jsonb(COALESCE((SELECT runner_deaths FROM devx_queue_stats WHERE id = 1), 0)) END)
    FROM now
   WHERE t.task_id = (
     SELECT c.task_id FROM devx_tasks c
      WHERE c.status = 'pending' AND NOT (c.task_id = ANY($1))
        AND (c.after_id IS NULL OR EXISTS (SELECT 1 FROM devx_tasks p WHERE p.task_id = c.after_id AND p.status = 'complete'))
      ORDER BY c.created_at, c.task_id LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING t.task_id, t.data, t.plan)
SELECT c.task_id, c.data, c.plan,
       (SELECT json_agg(json_build_object('host', r.owner_host, 'pid', r.owner_pid, 'expired', r.lease_until < now.n))
          FROM devx_tasks r WHERE r.status = 'running' AND (r.lease_until < now.n OR (r.owner_host = $3 AND r.owner_pid <> $4))) AS suspects
  FROM now LEFT JOIN claimed c ON true`;
// $1 task, $2 runner, $3 status, $4 the result's fields, $5 fields to remove, $6 1 for a failure of its own,
// $7 plan, $8 patch, $9/$10 the transcript's pending lines (task ids, lines), $11 the last line.
export const FINISH_SQL = `
WITH up AS (
  UPDATE devx_tasks t SET status = $3, lease_until = NULL, owner_host = NULL, owner_pid = NULL, owner_runner = NULL,
         plan = COALESCE($7, t.plan), patch = $8,
         data = (t.data - $5::text[]) || $4::jsonb || jsonb_build_object(
           'attempts', CASE WHEN jsonb_typeof(t.data->'attempts') = 'number' THEN to_jsonb((t.data->>'attempts')::numeric + $6) ELSE 'null'::jsonb END,
           'completedAt', ${iso('clock_timestamp()')})
   WHERE t.task_id = $1 AND t.owner_runner = $2
  RETURNING t.task_id, t.data),
logged AS (
  INSERT INTO devx_task_logs (task_id, line)
  SELECT x.t, x.l FROM (
    SELECT u.t, u.l, u.n FROM unnest($9::text[], $10::text[]) WITH ORDINALITY AS u(t, l, n)
    UNION ALL SELECT up.task_id, $11::text, 9223372036854775807 FROM up WHERE $11::text IS NOT NULL) x
  ORDER BY x.n)
SELECT data FROM up`;
