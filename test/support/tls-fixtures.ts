// Throwaway certificates for TLS tests, made with the openssl CLI: a CA, a server cert for 127.0.0.1/localhost, a client cert.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFixtures {
  dir: string;
  caPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  ca: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
  /** A client certificate signed by a different CA, which the server must refuse. */
  strangerCert: Buffer;
  strangerKey: Buffer;
  remove(): Promise<void>;
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    ...KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function makeLeaf(dir: string, name: string, ca: string): void {
  openssl(dir, ['req', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

export async function createTlsFixtures(): Promise<TlsFixtures> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-tls-'));
  await writeFile(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await writeFile(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  await writeFile(join(dir, 'stranger.ext'), 'extendedKeyUsage=clientAuth\n');
  makeCa(dir, 'test-ca');
  makeCa(dir, 'other-ca');
  makeLeaf(dir, 'server', 'test-ca');
  makeLeaf(dir, 'client', 'test-ca');
  makeLeaf(dir, 'stranger', 'other-ca');
  const read = (file: string) => readFile(join(dir, file));
  return {
    dir,
    caPath: join(dir, 'test-ca.crt'),
    serverCertPath: join(dir, 'server.crt'),
    serverKeyPath: join(dir, 'server.key'),
    ca: await read('test-ca.crt'),
    clientCert: await read('client.crt'),
    clientKey: await read('client.key'),
    strangerCert: await read('stranger.crt'),
    strangerKey: await read('stranger.key'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
