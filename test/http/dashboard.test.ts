// GET / redirects to /app/ and /app/* serves the dashboard files when the dashboard is enabled.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

describe('dashboard', () => {
  let webDist: string;
  let gateway: Harness;
  beforeAll(async () => {
    webDist = await mkdtemp(join(tmpdir(), 'agent-gateway-web-'));
    await writeFile(join(webDist, 'index.html'), '<!doctype html><title>Gateway test dashboard</title>');
    await mkdir(join(webDist, 'assets'));
    await writeFile(join(webDist, 'assets', 'app.js'), 'console.log("dashboard");');
    gateway = await startGateway({ gateway: { webDistPath: webDist } });
  });
  afterAll(async () => {
    await gateway.close();
    await rm(webDist, { recursive: true, force: true });
  });

  it('redirects / to /app/ without authentication', async () => {
    const response = await fetch(`${gateway.url}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/app/');
  });

  it('serves index.html at /app/ without authentication', async () => {
    const response = await fetch(`${gateway.url}/app/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('Gateway test dashboard');
  });

  it('serves other files under /app/ with their content type', async () => {
    const response = await fetch(`${gateway.url}/app/assets/app.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect(await response.text()).toBe('console.log("dashboard");');
  });

  it('serves index.html for a deep link to a dashboard page, so a reload or bookmark opens that page', async () => {
    for (const path of ['/app/sessions', '/app/sessions?agentId=default', '/app/config/history']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('Gateway test dashboard');
    }
  });

  it('answers 404 for a missing file and refuses to leave webDistPath', async () => {
    expect((await fetch(`${gateway.url}/app/missing.js`)).status).toBe(404);
    const traversal = await fetch(`${gateway.url}/app/..%2f..%2fetc%2fpasswd`);
    expect(traversal.status).toBeGreaterThanOrEqual(400);
    expect(await traversal.text()).not.toContain('root:');
  });
});

describe('dashboard disabled', () => {
  it('answers / and /app/ with 404 when web.enabled is false', async () => {
    const webDist = await mkdtemp(join(tmpdir(), 'agent-gateway-web-'));
    await writeFile(join(webDist, 'index.html'), '<!doctype html>');
    const gateway = await startGateway({ listen: false, gateway: { web: { enabled: false }, webDistPath: webDist } });
    try {
      const root = await gateway.app.http.inject({ method: 'GET', url: '/' });
      expect(root.statusCode).toBe(404);
      expect(root.json()).toMatchObject({ error: { code: 'not_found' } });
      expect((await gateway.app.http.inject({ method: 'GET', url: '/app/' })).statusCode).toBe(404);
    } finally {
      await gateway.close();
      await rm(webDist, { recursive: true, force: true });
    }
  });

  it('still redirects / but serves no files when no dashboard build exists', async () => {
    const gateway = await startGateway({ listen: false });
    try {
      expect((await gateway.app.http.inject({ method: 'GET', url: '/' })).statusCode).toBe(302);
      expect((await gateway.app.http.inject({ method: 'GET', url: '/app/' })).statusCode).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
