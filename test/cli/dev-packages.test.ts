import * as demo from '@station-agent/demo';
import * as emulator from '@station-agent/emulator';
import { describe, expect, it } from 'vitest';
import {
  notInstalledMessage,
  type DemoPackage,
  type LocalServicePackage,
} from '../../src/cli/commands/support/dev-packages.js';

/**
 * `station-agent emulator` and `demo` load their packages by name at run time (the agent
 * never imports them). These assignments make the compiler check that each package
 * provides what the CLI uses of it; the install test runs the message on a station.
 */
const localService: LocalServicePackage = emulator;
const demoPackage: DemoPackage<demo.ServiceSummary> = demo;

describe('the development packages the CLI loads', () => {
  it('provide the functions the commands call', () => {
    expect(typeof localService.startEmulator).toBe('function');
    expect(typeof demoPackage.runDemo).toBe('function');
    expect(typeof demoPackage.renderSummary).toBe('function');
  });

  it('are named in the message a station prints, with the command to run instead', () => {
    const message = notInstalledMessage('emulator', '@station-agent/emulator');
    expect(message).toContain('@station-agent/emulator');
    expect(message).toContain('npm run emulator');
    expect(message).not.toMatch(/https?:\/\//);
  });
});
