-- Change notifications for the server's in-memory caches (apps/server/src/repositories/change-cache.ts),
-- sent by the database itself so that no write path, process or raw statement can forget one.
-- 'session_list_changed' with the owner's user id: every write that changes what the user's session
-- list shows (sessions, their trials: count and trash, the subjects whose names it shows).
-- PostgreSQL delivers a notification when its transaction commits, and folds repeats of the same
-- payload within one transaction into one.
CREATE FUNCTION notify_session_list_of_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('session_list_changed', OLD.user_id::text);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('session_list_changed', NEW.user_id::text);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION notify_session_list_of_trial() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  owner integer;
BEGIN
  -- A trial deleted with its session finds no session any more: the session's own trigger notifies then.
  FOR owner IN
    SELECT user_id FROM sessions
    WHERE id IN (
      CASE WHEN TG_OP <> 'INSERT' THEN OLD.session_id END,
      CASE WHEN TG_OP <> 'DELETE' THEN NEW.session_id END
    )
  LOOP
    PERFORM pg_notify('session_list_changed', owner::text);
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER sessions_notify_session_list AFTER INSERT OR UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION notify_session_list_of_user();
--> statement-breakpoint
CREATE TRIGGER subjects_notify_session_list AFTER INSERT OR UPDATE OR DELETE ON subjects
  FOR EACH ROW EXECUTE FUNCTION notify_session_list_of_user();
--> statement-breakpoint
CREATE TRIGGER trials_notify_session_list AFTER INSERT OR UPDATE OR DELETE ON trials
  FOR EACH ROW EXECUTE FUNCTION notify_session_list_of_trial();
--> statement-breakpoint
-- 'sign_in_changed' with the user's id: a login of theirs was verified, revoked or removed, or their account changed.
-- The trigger's argument names the column holding the user id.
CREATE FUNCTION notify_sign_in_of_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sign_in_changed', to_jsonb(OLD) ->> TG_ARGV[0]);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER auth_tokens_notify_sign_in AFTER UPDATE OR DELETE ON auth_tokens
  FOR EACH ROW EXECUTE FUNCTION notify_sign_in_of_user('user_id');
--> statement-breakpoint
CREATE TRIGGER users_notify_sign_in AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION notify_sign_in_of_user('id');
