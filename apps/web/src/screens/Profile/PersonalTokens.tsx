import {
  createPersonalTokenRequestSchema,
  messages,
  type CreatePersonalTokenRequest,
  type CreatedPersonalToken,
  type PersonalToken,
  type PersonalTokenAccess,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Code, CopyButton, Group, Radio, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useCreatePersonalToken, usePersonalTokens, useRevokePersonalToken } from '../../api/personal-tokens.ts';
import { formatDate } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { EmptyTableRow } from '../../components/EmptyTableRow.tsx';
import { toast } from '../../components/toasts.tsx';

const accessLabels: Record<PersonalTokenAccess, string> = { read: 'Read-only', read_write: 'Read-write' };

/** The secret of a token just made: shown this once, with a button that copies it. */
function NewTokenNotice({ created, onDone }: { created: CreatedPersonalToken; onDone: () => void }) {
  return (
    <Alert color="green" title={`New token '${created.name}'`} w="100%">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{messages.personalTokenCreated}</Text>
        <Code block aria-label="New token" w="100%" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {created.token}
        </Code>
        <Group>
          <CopyButton value={created.token}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copied' : 'Copy token'}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="default" onClick={onDone}>
            Done
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

function TokenTable({ tokens, onRevoke }: { tokens: PersonalToken[]; onRevoke: (token: PersonalToken) => void }) {
  return (
    <Table aria-label="Personal API tokens">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Access</Table.Th>
          <Table.Th>Created</Table.Th>
          <Table.Th>Expires</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {tokens.length === 0 && (
          <EmptyTableRow columns={5}>No tokens. Create one for your scripts below.</EmptyTableRow>
        )}
        {tokens.map((token) => (
          <Table.Tr key={token.id}>
            <Table.Td>{token.name}</Table.Td>
            <Table.Td>{accessLabels[token.access]}</Table.Td>
            <Table.Td>{formatDate(token.created_at)}</Table.Td>
            <Table.Td>{formatDate(token.expires_at)}</Table.Td>
            <Table.Td>
              <Button size="xs" color="red" variant="subtle" onClick={() => onRevoke(token)}>
                Revoke
              </Button>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * Personal API tokens (issue 22), in the owner's settings: for scripts such as OpenCap's Python client, which
 * cannot answer the e-mailed code. Each is shown once, when made; the list shows names, never secrets.
 */
export function PersonalTokens() {
  const tokens = usePersonalTokens();
  const createToken = useCreatePersonalToken();
  const revokeToken = useRevokePersonalToken();
  const [created, setCreated] = useState<CreatedPersonalToken | null>(null);
  const [revoking, setRevoking] = useState<PersonalToken | null>(null);
  const form = useForm<CreatePersonalTokenRequest>({
    resolver: zodResolver(createPersonalTokenRequestSchema),
    defaultValues: { name: '', access: 'read' },
  });

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      setCreated(await createToken.mutateAsync(values));
      form.reset();
    } catch (error) {
      reportError(error, 'Could not create the token.', {
        setError: form.setError,
        schema: createPersonalTokenRequestSchema,
      });
    }
  });

  const revoke = async (token: PersonalToken) => {
    try {
      toast.success((await revokeToken.mutateAsync(token.id)).message);
      if (created?.id === token.id) setCreated(null);
    } catch (error) {
      reportError(error, 'Could not revoke the token.');
    } finally {
      setRevoking(null);
    }
  };

  return (
    <Stack align="flex-start" w="100%" gap="sm">
      <Title order={3}>Personal API tokens</Title>
      <Text size="sm" c="dimmed">
        For scripts, such as OpenCap&apos;s Python client (set the token as API_TOKEN), which cannot enter the e-mailed
        code. A token works for a year unless you revoke it; a read-only token cannot change anything.
      </Text>
      {created && <NewTokenNotice created={created} onDone={() => setCreated(null)} />}
      {tokens.isError ? (
        <Text c="red">Could not load your tokens.</Text>
      ) : (
        <TokenTable tokens={tokens.data ?? []} onRevoke={setRevoking} />
      )}
      <form onSubmit={(event) => void onSubmit(event)} noValidate style={{ width: '100%' }}>
        <Group align="flex-end">
          <TextInput
            label="Token name"
            placeholder="e.g. lab analysis scripts"
            {...form.register('name')}
            error={form.formState.errors.name?.message}
          />
          <Controller
            control={form.control}
            name="access"
            render={({ field }) => (
              <Radio.Group label="Access" value={field.value} onChange={field.onChange}>
                <Group gap="sm" py={6}>
                  {Object.entries(accessLabels).map(([value, label]) => (
                    <Radio key={value} value={value} label={label} />
                  ))}
                </Group>
              </Radio.Group>
            )}
          />
          <Button type="submit" loading={form.formState.isSubmitting}>
            Create token
          </Button>
        </Group>
      </form>
      {revoking && (
        <ConfirmDialog
          title="Revoke token"
          message={`Revoke the token '${revoking.name}'? Scripts using it stop working at once.`}
          confirmLabel="Revoke"
          cancelLabel="Cancel"
          danger
          busy={revokeToken.isPending}
          onConfirm={() => void revoke(revoking)}
          onClose={() => setRevoking(null)}
        />
      )}
    </Stack>
  );
}
