import { describe, expect, it } from 'vitest';
import { captureAddressProblem } from '../src/screens/ConnectDevices/capture-address.ts';

describe('captureAddressProblem: whether a phone scanning the QR code can record from it', () => {
  it('says a loopback or any-interface address names the phone itself, and how to fix it', () => {
    for (const url of [
      'http://localhost:8080',
      'https://localhost:8080',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
      'http://0.0.0.0:8080',
      'http://app.localhost',
    ]) {
      const problem = captureAddressProblem(`${url}/capture/token`);
      expect(problem, url).toContain('the phone itself');
      expect(problem, url).toContain('`npm start -- --https`');
      expect(problem, url).toContain('PUBLIC_URL');
    }
  });

  it('says plain HTTP on the network gives the page no camera', () => {
    const problem = captureAddressProblem('http://192.168.1.20:8080/capture/token');
    expect(problem).toContain('plain HTTP');
    expect(problem).toContain('`npm start -- --https`');
    expect(problem).toContain('https://');
  });

  it('accepts HTTPS on an address of the network or the internet', () => {
    expect(captureAddressProblem('https://192.168.1.20:8080/capture/token')).toBeNull();
    expect(captureAddressProblem('https://mocap.example.org/capture/token')).toBeNull();
  });
});
