import { z } from 'zod';

// The server's content security policy forbids eval (script-src 'self'): zod must neither compile its object
// parsers with `new Function` nor try whether it may (the refused try is reported as a violation). Schemas read
// this when they are made, so this module is imported before any other.
z.config({ jitless: true });
