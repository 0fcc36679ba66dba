import { createServer, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { connectBroker } from '../../src/mqtt/connection.js';
import { brokerSettings } from '../../src/mqtt/options.js';
import { outcomeWithin } from '../helpers/outcome.js';

/**
 * The MQTT connect has a total limit like every outbound request: mqtt.js's
 * connectTimeout runs from the connect to the CONNACK, whatever arrives meanwhile.
 * Shown against a real peer that accepts the connection, starts a CONNACK and then
 * sends one byte every 100 ms for ever. A publish has one too: a broker that accepts
 * the connection and then never acknowledges would hold the publisher for ever.
 */

/** A peer on a free port of 127.0.0.1, each connection handled by `onConnection`. */
async function peer(onConnection: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as { port: number }).port;
}

/** Accepts the connection, starts a CONNACK announcing 2 MiB (a valid remaining length), then sends its bytes one by one. */
const tricklingPeer = () =>
  peer((socket) => {
    socket.write(Buffer.from([0x20, 0x80, 0x80, 0x80, 0x01]));
    const timer = setInterval(() => socket.write(Buffer.from([0x00])), 100);
    socket.on('close', () => clearInterval(timer));
  });

/** Accepts the connection (CONNACK 0: accepted) and then never acknowledges anything. */
const silentBroker = () => peer((socket) => socket.once('data', () => socket.write(Buffer.from([0x20, 0x02, 0x00, 0x00]))));

function mqttConfig(port: number) {
  return parseConfig({
    service: { baseUrl: 'http://127.0.0.1:9', token: 'x' },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: '/tmp/in' },
    mqtt: { enabled: true, url: `mqtt://127.0.0.1:${port}`, clientId: 'garden' },
  });
}

describe('the MQTT connection', () => {
  it('fails at its limit against a peer that trickles its answer', async () => {
    const port = await tricklingPeer();
    const settings = await brokerSettings(mqttConfig(port).mqtt, { connectTimeoutMs: 300 });
    const outcome = await outcomeWithin(connectBroker(settings));
    expect(outcome).toMatchObject({ code: 'ERR_MQTT_BROKER', message: expect.stringContaining(`cannot connect to the MQTT broker mqtt://127.0.0.1:${port}`) });
    expect((outcome as Error).message).toContain('connack timeout');
  }, 30_000);

  it('a publish the broker never acknowledges fails at its limit', async () => {
    const port = await silentBroker();
    const conn = await connectBroker(await brokerSettings(mqttConfig(port).mqtt, { publishTimeoutMs: 300 }));
    onTestFinished(() => conn.end());
    const outcome = await outcomeWithin(conn.publish('station/garden/detection', '{}', { qos: 1, retain: false }));
    expect(outcome).toMatchObject({ code: 'ERR_MQTT_PUBLISH', message: 'station/garden/detection: not acknowledged within 300 ms' });
  }, 30_000);
});
