-- Every `task_reopened` event: an on-task-end hook sent the task back.
-- @column trace_path    VARCHAR  Trace file.
-- @column line          BIGINT   Line of the event.
-- @column task_id       VARCHAR  Task reopened.
-- @column reopen_number BIGINT   1 for the first reopen of the task, and so on.
-- @column hook_name     VARCHAR  Hook that reopened it.
-- @column reason        VARCHAR  Why, as the hook said.
SELECT trace_path, line, task_id, reopen_number, hook_name, reason
FROM events
WHERE event_type = 'task_reopened'
