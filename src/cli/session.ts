// The one way every command opens its session, handed in at start-up: BaseCommand (src/lib) stands below src/auth
// and cannot load it itself. src/auth loads with the first command that asks for a session, not at every start.
import {opensSessionsWith} from '../lib/session.js';

opensSessionsWith(async (request) => (await import('../auth/session.js')).openCommandSession(request));
