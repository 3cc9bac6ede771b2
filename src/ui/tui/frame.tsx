// The fixed frame every screen of the delivery browser is drawn in, as tall as the terminal: header (title,
// address, freshness), column line, body, status line, key line.
import {Box, Text} from 'ink';
import type React from 'react';
import {sanitize} from '../text.js';
import type {Tone} from './screens.js';

/** Lines of the frame that are not the body: header, column line, status line, key line. */
export const CHROME_LINES = 4;

export interface FrameProps {
  width: number;
  height: number;
  paint: (tone: Tone | undefined) => Tone | undefined;
  title: string;
  /** Said after the title, in grey. */
  where: string;
  freshness: string;
  freshnessTone?: Tone;
  columns: React.ReactNode;
  body: React.ReactNode[];
  status: React.ReactNode;
  keys: string;
}

export function Frame(p: FrameProps): React.ReactElement {
  const bodyHeight = p.height - CHROME_LINES;
  return (
    <Box flexDirection="column" width={p.width} height={p.height}>
      <Box width={p.width}>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate-end">
            <Text bold color={p.paint('cyan')}>
              svc
            </Text>{' '}
            <Text bold>{p.title}</Text>
            <Text color={p.paint('gray')}>{p.where}</Text>
          </Text>
        </Box>
        <Box flexShrink={0} marginLeft={1}>
          <Text color={p.paint(p.freshnessTone)}>{p.freshness}</Text>
        </Box>
      </Box>
      <Box width={p.width}>{typeof p.columns === 'string' ? <Text>{p.columns}</Text> : p.columns}</Box>
      <Box flexDirection="column" height={bodyHeight} width={p.width} overflow="hidden">
        {p.body.slice(0, bodyHeight).map((node, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed frame
          <Box key={i} flexShrink={0} width={p.width}>
            {node}
          </Box>
        ))}
      </Box>
      <Box width={p.width}>
        <Text wrap="truncate-end">{p.status}</Text>
      </Box>
      <Box width={p.width}>
        <Text wrap="truncate-end" color={p.paint('gray')}>
          {p.keys}
        </Text>
      </Box>
    </Box>
  );
}

/** The status line: the filter being typed, a message, the filter in force, or stale data's trouble. */
export function StatusLine(p: {
  paint: FrameProps['paint'];
  editing: boolean;
  filter: string;
  message?: {text: string; tone?: Tone};
  staleBecause?: string;
}): React.ReactElement {
  if (p.editing)
    return (
      <Text>
        <Text color={p.paint('cyan')}>/</Text> filter: {p.filter}
        <Text inverse> </Text>
        <Text color={p.paint('gray')}> (enter keeps it, esc clears it)</Text>
      </Text>
    );
  if (p.message) return <Text color={p.paint(p.message.tone)}>{sanitize(p.message.text)}</Text>;
  if (p.filter) return <Text color={p.paint('gray')}>filter: {p.filter} (/ to change, esc to clear)</Text>;
  if (p.staleBecause !== undefined)
    return <Text color={p.paint('yellow')}>Showing the last data: {sanitize(p.staleBecause)}</Text>;
  return <Text> </Text>;
}
