import { describe, expect, test } from '@jest/globals';
import { AddressRefused, checkedAddresses, isAllowedAddress, urlProblem } from '#shared/webhooks/address.js';

describe('webhook addresses (contract 17: no private network is ever called)', () => {
  test.each([
    '127.0.0.1',
    '127.3.2.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::10.0.0.1',
    'ff02::1',
  ])('%s is never called', (address) => {
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  test.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '172.32.0.1', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isAllowedAddress(address, false)).toBe(true);
    },
  );

  test('loopback only where allowed (the local twin), and nothing else private', () => {
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('::1', true)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', true)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', true)).toBe(false);
  });

  test('a name is refused when any one of its addresses is private', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(
      checkedAddresses(new URL('https://hooks.example.com/x'), { allowLoopback: false, resolve }),
    ).rejects.toThrow(/resolves to 10\.0\.0\.5/);
    await expect(
      checkedAddresses(new URL('https://hooks.example.com/x'), {
        allowLoopback: false,
        resolve: async () => {
          throw new Error('ENOTFOUND');
        },
      }),
    ).rejects.toBeInstanceOf(AddressRefused);
  });

  test('IP literals in every spelling the URL parser accepts are checked as addresses', async () => {
    for (const url of [
      'https://0x7f.1/',
      'https://2130706433/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::1]:8443/',
    ]) {
      await expect(checkedAddresses(new URL(url), { allowLoopback: false })).rejects.toBeInstanceOf(AddressRefused);
    }
    expect(await checkedAddresses(new URL('https://8.8.8.8/'), { allowLoopback: false })).toEqual([
      { address: '8.8.8.8', family: 4 },
    ]);
  });

  test('https only; http only to a loopback host where loopback is allowed; no user info', () => {
    expect(urlProblem('https://hooks.example.com/in', false)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/in', false)).toBe('must be https');
    expect(urlProblem('http://127.0.0.1:9000/in', false)).toBe('must be https');
    expect(urlProblem('http://127.0.0.1:9000/in', true)).toBeUndefined();
    expect(urlProblem('http://localhost:9000/in', true)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/in', true)).toMatch(/must be https/);
    expect(urlProblem('ftp://hooks.example.com/', false)).toBe('must be https');
    expect(urlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/user name or password/);
    expect(urlProblem('not a url', false)).toBe('is not a URL');
  });
});
