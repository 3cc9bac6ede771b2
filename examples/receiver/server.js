// A webhook receiver for svc, small enough to copy: node:http and @svc/webhooks/node, which reads the raw
// body, checks the signature and its timestamp, and hands each event to handleEvent once (a repeated
// delivery of the same event is acknowledged without running it again).
//
//   SVC_WEBHOOK_SECRET=whsec_… PORT=3000 node examples/receiver/server.js
import {createServer} from 'node:http';
import {pathToFileURL} from 'node:url';
import {createNodeHandler} from '@svc/webhooks/node';

/** Your business logic. Throw to answer 500: svc retries after 30 s, 2 min, 10 min, … */
export async function handleEvent(event, delivery) {
  const {sandbox} = event.data;
  switch (event.type) {
    case 'sandbox.ready':
      console.log(`${sandbox.name} (${sandbox.id}) is running`);
      break;
    case 'sandbox.stopped':
      console.log(`${sandbox.name} stopped${sandbox.last_error ? `: ${sandbox.last_error}` : ''}`);
      break;
    case 'sandbox.error':
      console.log(`${sandbox.name} failed: ${sandbox.last_error ?? 'no detail'}`);
      break;
    case 'sandbox.expired':
      console.log(`${sandbox.name} expired and is being deleted`);
      break;
  }
  console.log(`  event ${event.id}, delivery ${delivery.deliveryId}, attempt ${delivery.attempt}`);
}

/** The request handler: POST /webhooks verified and handled, anything else 404. */
export function webhookRoutes({secret, onEvent = handleEvent}) {
  const receive = createNodeHandler({secret, onEvent});
  return (req, res) => {
    if (req.url === '/webhooks') return receive(req, res);
    res.writeHead(404, {'content-type': 'text/plain'});
    res.end('not found\n');
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.SVC_WEBHOOK_SECRET;
  if (!secret) {
    console.error(
      'Set SVC_WEBHOOK_SECRET to the endpoint signing secret (whsec_…), shown once when it was created.',
    );
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 3000);
  createServer(webhookRoutes({secret})).listen(port, '127.0.0.1', () => {
    console.log(`Receiving svc webhooks on http://127.0.0.1:${port}/webhooks`);
  });
}
