// The explicit command list oclif loads (package.json oclif.commands): one module to import instead of a
// directory to scan, and one object the CLI bundle can hand over without loading files.
import AuthStatus from '../commands/auth/status.js';
import Conformance from '../commands/conformance.js';
import Doctor from '../commands/doctor.js';
import EmulatorClock from '../commands/emulator/clock.js';
import EmulatorDeliveriesResend from '../commands/emulator/deliveries/resend.js';
import EmulatorExec from '../commands/emulator/exec.js';
import EmulatorExport from '../commands/emulator/export.js';
import EmulatorImport from '../commands/emulator/import.js';
import EmulatorKeysCreate from '../commands/emulator/keys/create.js';
import EmulatorKeysRevoke from '../commands/emulator/keys/revoke.js';
import EmulatorLogs from '../commands/emulator/logs.js';
import EmulatorOpenapi from '../commands/emulator/openapi.js';
import EmulatorLimiterReset from '../commands/emulator/limiter/reset.js';
import EmulatorOrgsCheckpoint from '../commands/emulator/orgs/checkpoint.js';
import EmulatorOrgsCheckpoints from '../commands/emulator/orgs/checkpoints.js';
import EmulatorOrgsCreate from '../commands/emulator/orgs/create.js';
import EmulatorOrgsDelete from '../commands/emulator/orgs/delete.js';
import EmulatorOrgsReset from '../commands/emulator/orgs/reset.js';
import EmulatorOrgsRewind from '../commands/emulator/orgs/rewind.js';
import EmulatorReset from '../commands/emulator/reset.js';
import EmulatorSandboxesAction from '../commands/emulator/sandboxes/action.js';
import EmulatorSandboxesCreate from '../commands/emulator/sandboxes/create.js';
import EmulatorSandboxesLinksCreate from '../commands/emulator/sandboxes/links/create.js';
import EmulatorSandboxesLinksList from '../commands/emulator/sandboxes/links/list.js';
import EmulatorSandboxesList from '../commands/emulator/sandboxes/list.js';
import EmulatorStart from '../commands/emulator/start.js';
import EmulatorStatus from '../commands/emulator/status.js';
import EmulatorStop from '../commands/emulator/stop.js';
import EmulatorWebhooksChaos from '../commands/emulator/webhooks/chaos.js';
import EmulatorWebhooksCreate from '../commands/emulator/webhooks/create.js';
import EmulatorWebhooksDelete from '../commands/emulator/webhooks/delete.js';
import EventsSample from '../commands/events/sample.js';
import EventsSchema from '../commands/events/schema.js';
import KeysList from '../commands/keys/list.js';
import Listen from '../commands/listen.js';
import Login from '../commands/login.js';
import Logout from '../commands/logout.js';
import Mcp from '../commands/mcp/index.js';
import McpConfig from '../commands/mcp/config.js';
import Open from '../commands/open.js';
import Org from '../commands/org.js';
import ScenarioRun from '../commands/scenario/run.js';
import Trigger from '../commands/trigger.js';
import Tui from '../commands/tui.js';
import Version from '../commands/version.js';
import WebhooksDeliveries from '../commands/webhooks/deliveries.js';
import WebhooksDeliveriesShow from '../commands/webhooks/deliveries/show.js';
import WebhooksDiagnose from '../commands/webhooks/diagnose.js';
import WebhooksList from '../commands/webhooks/list.js';
import WebhooksSend from '../commands/webhooks/send.js';
import WebhooksTestReceiver from '../commands/webhooks/test-receiver.js';
import WebhooksVerify from '../commands/webhooks/verify.js';
// How commands open their session (the bundle's entry, main.ts, hands it in too: there this list becomes getters).
import './session.js';

export const COMMANDS = {
  'auth:status': AuthStatus,
  conformance: Conformance,
  doctor: Doctor,
  'emulator:clock': EmulatorClock,
  'emulator:deliveries:resend': EmulatorDeliveriesResend,
  'emulator:exec': EmulatorExec,
  'emulator:export': EmulatorExport,
  'emulator:import': EmulatorImport,
  'emulator:keys:create': EmulatorKeysCreate,
  'emulator:keys:revoke': EmulatorKeysRevoke,
  'emulator:limiter:reset': EmulatorLimiterReset,
  'emulator:logs': EmulatorLogs,
  'emulator:openapi': EmulatorOpenapi,
  'emulator:orgs:checkpoint': EmulatorOrgsCheckpoint,
  'emulator:orgs:checkpoints': EmulatorOrgsCheckpoints,
  'emulator:orgs:create': EmulatorOrgsCreate,
  'emulator:orgs:delete': EmulatorOrgsDelete,
  'emulator:orgs:reset': EmulatorOrgsReset,
  'emulator:orgs:rewind': EmulatorOrgsRewind,
  'emulator:reset': EmulatorReset,
  'emulator:sandboxes:action': EmulatorSandboxesAction,
  'emulator:sandboxes:create': EmulatorSandboxesCreate,
  'emulator:sandboxes:links:create': EmulatorSandboxesLinksCreate,
  'emulator:sandboxes:links:list': EmulatorSandboxesLinksList,
  'emulator:sandboxes:list': EmulatorSandboxesList,
  'emulator:start': EmulatorStart,
  'emulator:status': EmulatorStatus,
  'emulator:stop': EmulatorStop,
  'emulator:webhooks:chaos': EmulatorWebhooksChaos,
  'emulator:webhooks:create': EmulatorWebhooksCreate,
  'emulator:webhooks:delete': EmulatorWebhooksDelete,
  'events:sample': EventsSample,
  'events:schema': EventsSchema,
  'keys:list': KeysList,
  listen: Listen,
  login: Login,
  logout: Logout,
  mcp: Mcp,
  'mcp:config': McpConfig,
  open: Open,
  org: Org,
  'scenario:run': ScenarioRun,
  trigger: Trigger,
  tui: Tui,
  version: Version,
  'webhooks:deliveries': WebhooksDeliveries,
  'webhooks:deliveries:show': WebhooksDeliveriesShow,
  'webhooks:diagnose': WebhooksDiagnose,
  'webhooks:list': WebhooksList,
  'webhooks:send': WebhooksSend,
  'webhooks:test-receiver': WebhooksTestReceiver,
  'webhooks:verify': WebhooksVerify,
};
