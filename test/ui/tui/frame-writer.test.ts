// The frame writer puts only changed lines on screen, in place: what keeps a live refresh from flickering.
import {EventEmitter} from 'node:events';
import {describe, expect, it} from 'vitest';
import {FrameWriter} from '../../../src/ui/tui/frame-writer.js';

class FakeTerminal extends EventEmitter {
  columns = 40;
  rows = 5;
  written: string[] = [];
  write(data: string) {
    this.written.push(data);
    return true;
  }
}

const CLEAR = '\u001B[2J';

describe('FrameWriter', () => {
  it('writes a whole first frame, then only the lines that changed, never clearing the screen', () => {
    const terminal = new FakeTerminal();
    const screen = new FrameWriter(terminal);
    screen.write('header\nrow one\nrow two\nkeys');
    const first = terminal.written.splice(0).join('');
    for (const line of ['header', 'row one', 'row two', 'keys']) expect(first).toContain(line);

    screen.write('header\nrow one\nrow 2!!\nkeys');
    const second = terminal.written.splice(0).join('');
    expect(second).toContain('\u001B[3;1Hrow 2!!\u001B[K');
    expect(second).not.toContain('header');
    expect(second).not.toContain('row one');
    expect(second).not.toContain(CLEAR);

    screen.write('header\nrow one\nrow 2!!\nkeys');
    expect(terminal.written).toEqual([]);
  });

  it('blanks lines a shorter frame no longer has, and repaints everything after a resize', () => {
    const terminal = new FakeTerminal();
    const screen = new FrameWriter(terminal);
    screen.write('a\nb\nc');
    terminal.written.length = 0;
    screen.write('a');
    expect(terminal.written.join('')).toContain('\u001B[3;1H\u001B[K');

    let resized = 0;
    screen.on('resize', () => resized++);
    terminal.emit('resize');
    expect(resized).toBe(1);
    expect(terminal.written.join('')).toContain(CLEAR);
    terminal.written.length = 0;
    screen.write('a');
    expect(terminal.written.join('')).toContain('\u001B[1;1Ha');
    screen.close();
    expect(terminal.listenerCount('resize')).toBe(0);
  });
});
