import './app/zod-without-eval.ts';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { queryClient } from './app/query-client.ts';
import { router } from './app/router.tsx';
import { StartupCheck } from './app/StartupCheck.tsx';
import { getStyleNonce } from './app/style-nonce.ts';
import { ToastArea } from './components/toasts.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider getStyleNonce={getStyleNonce}>
      <ToastArea />
      <QueryClientProvider client={queryClient}>
        <StartupCheck>
          <RouterProvider router={router} />
        </StartupCheck>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
